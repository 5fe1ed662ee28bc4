#include "primitives/unary.h"

#include <sstream>

namespace ember {

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Abs:
      return "abs";
    case UnaryOp::Neg:
      return "neg";
    case UnaryOp::Sign:
      return "sign";
    case UnaryOp::Exp:
      return "exp";
    case UnaryOp::Exp2:
      return "exp2";
    case UnaryOp::Expm1:
      return "expm1";
    case UnaryOp::Log:
      return "log";
    case UnaryOp::Log2:
      return "log2";
    case UnaryOp::Log10:
      return "log10";
    case UnaryOp::Log1p:
      return "log1p";
    case UnaryOp::Sqrt:
      return "sqrt";
    case UnaryOp::Rsqrt:
      return "rsqrt";
    case UnaryOp::Reciprocal:
      return "reciprocal";
    case UnaryOp::Sin:
      return "sin";
    case UnaryOp::Cos:
      return "cos";
    case UnaryOp::Tan:
      return "tan";
    case UnaryOp::Asin:
      return "asin";
    case UnaryOp::Acos:
      return "acos";
    case UnaryOp::Atan:
      return "atan";
    case UnaryOp::Sinh:
      return "sinh";
    case UnaryOp::Cosh:
      return "cosh";
    case UnaryOp::Tanh:
      return "tanh";
    case UnaryOp::Sigmoid:
      return "sigmoid";
    case UnaryOp::Logit:
      return "logit";
    case UnaryOp::Erf:
      return "erf";
    case UnaryOp::Erfc:
      return "erfc";
    case UnaryOp::Erfinv:
      return "erfinv";
    case UnaryOp::Floor:
      return "floor";
    case UnaryOp::Ceil:
      return "ceil";
    case UnaryOp::Round:
      return "round";
    case UnaryOp::Trunc:
      return "trunc";
    case UnaryOp::Frac:
      return "frac";
    case UnaryOp::Relu:
      return "relu";
    case UnaryOp::Gelu:
      return "gelu";
    case UnaryOp::Silu:
      return "silu";
    case UnaryOp::Mish:
      return "mish";
    case UnaryOp::Softplus:
      return "softplus";
    case UnaryOp::Elu:
      return "elu";
    case UnaryOp::LeakyRelu:
      return "leaky_relu";
    case UnaryOp::Hardtanh:
      return "hardtanh";
    case UnaryOp::Hardsigmoid:
      return "hardsigmoid";
    case UnaryOp::Hardswish:
      return "hardswish";
    case UnaryOp::NanToNum:
      return "nan_to_num";
    case UnaryOp::IsNan:
      return "isnan";
    case UnaryOp::IsInf:
      return "isinf";
    case UnaryOp::IsFinite:
      return "isfinite";
    case UnaryOp::LogicalNot:
      return "logical_not";
    case UnaryOp::BitwiseNot:
      return "bitwise_not";
  }
  return "unary";
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
    default:
      break;
  }
  return ss.str();
}

}  // namespace ember
