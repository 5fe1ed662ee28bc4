#pragma once
// Reductions over any set of dims (src/ops/reduction*.cpp). An empty dim list means every dim.
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

Tensor sum(const Tensor& x, std::optional<ScalarType> dtype = std::nullopt);
Tensor sum(const Tensor& x, IntList dim, bool keepdim = false,
           std::optional<ScalarType> dtype = std::nullopt);
Tensor nansum(const Tensor& x, IntList dim = {}, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& x, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& x, IntList dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& x, IntList dim = {}, bool keepdim = false,
               std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& x, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& x, int64_t dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& x, IntList dim = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntList dim = {}, bool keepdim = false);
std::tuple<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
/// correction = 1 is Bessel's correction (unbiased), 0 the population variance.
Tensor var(const Tensor& x, IntList dim = {}, double correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, IntList dim = {}, double correction = 1, bool keepdim = false);
/// libtorch's forms: an optional dim list (nullopt: all) and an optional correction (nullopt: 1).
Tensor var(const Tensor& x, OptionalIntList dim, const std::optional<Scalar>& correction,
           bool keepdim = false);
Tensor std(const Tensor& x, OptionalIntList dim, const std::optional<Scalar>& correction,
           bool keepdim = false);
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntList dim = {}, double correction = 1,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntList dim = {}, double correction = 1,
                                    bool keepdim = false);
/// p: any real, inf, -inf; 0 counts non-zeros.
Tensor norm(const Tensor& x, const Scalar& p = 2, IntList dim = {}, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor logsumexp(const Tensor& x, IntList dim, bool keepdim = false);
Tensor all(const Tensor& x);
Tensor all(const Tensor& x, IntList dim, bool keepdim = false);
Tensor any(const Tensor& x);
Tensor any(const Tensor& x, IntList dim, bool keepdim = false);
Tensor count_nonzero(const Tensor& x, IntList dim = {});
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);
Tensor logcumsumexp(const Tensor& x, int64_t dim);

}  // namespace ember
