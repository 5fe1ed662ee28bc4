#include "primitives/unary.h"

#include <iterator>
#include <sstream>

namespace ember {

namespace {
#define EMBER_UNARY_CLASS_NAME(Op, ...) #Op,
#define EMBER_UNARY_OP_NAME(Op, name, ...) #name,
constexpr const char* kClassNames[] = {EMBER_UNARY_TABLE_OPS(EMBER_UNARY_CLASS_NAME)
                                           EMBER_UNARY_OTHER_OPS(EMBER_UNARY_CLASS_NAME)};
constexpr const char* kOpNames[] = {EMBER_UNARY_TABLE_OPS(EMBER_UNARY_OP_NAME)
                                        EMBER_UNARY_OTHER_OPS(EMBER_UNARY_OP_NAME)};
#undef EMBER_UNARY_CLASS_NAME
#undef EMBER_UNARY_OP_NAME
constexpr int kCount = static_cast<int>(std::size(kOpNames));
}  // namespace

EnumInfo enum_info(UnaryOp) {
  return {kCount, [](int i) { return kClassNames[i]; }};
}

const char* unary_op_name(UnaryOp op) {
  const auto i = static_cast<int>(op);
  return i < kCount ? kOpNames[i] : "unary";
}

MetaList UnaryBackward::infer(std::span<const TensorMeta> in) const {
  return {TensorMeta::contiguous(in[1].sizes, in[1].dtype, in[1].device)};
}

std::string Unary::describe() const {
  std::ostringstream ss;
  auto opt = [&](const char* key, const std::optional<Scalar>& v) {
    if (!ss.str().empty()) ss << ", ";
    ss << key << "=";
    if (v)
      ss << *v;
    else
      ss << "None";
  };
  switch (p_.op) {
    case UnaryOp::Round:
      ss << "decimals=" << p_.args.decimals;
      break;
    case UnaryOp::Gelu:
      ss << "approximate='" << (p_.args.tanh_approx ? "tanh" : "none") << "'";
      break;
    case UnaryOp::Logit:
      opt("eps", p_.args.a);
      break;
    case UnaryOp::Softplus:
      opt("beta", p_.args.a), opt("threshold", p_.args.b);
      break;
    case UnaryOp::Elu:
      opt("alpha", p_.args.a), opt("scale", p_.args.b), opt("input_scale", p_.args.c);
      break;
    case UnaryOp::LeakyRelu:
      opt("negative_slope", p_.args.a);
      break;
    case UnaryOp::Hardtanh:
      opt("min_val", p_.args.a), opt("max_val", p_.args.b);
      break;
    case UnaryOp::NanToNum:
      opt("nan", p_.args.a), opt("posinf", p_.args.b), opt("neginf", p_.args.c);
      break;
#define EMBER_UNARY_CASE(Op, ...) case UnaryOp::Op:
      EMBER_UNARY_TABLE_OPS(EMBER_UNARY_CASE)
#undef EMBER_UNARY_CASE
    case UnaryOp::Abs:
    case UnaryOp::Neg:
    case UnaryOp::Sign:
    case UnaryOp::Relu:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite:
    case UnaryOp::LogicalNot:
    case UnaryOp::BitwiseNot:
      break;  // no parameters
  }
  return ss.str();
}

}  // namespace ember
