// Joint forward+backward capture (Note [Joint graph] in include/ember/fx/joint.h) and
// aot_function, which runs a partitioned joint graph as one autograd node.
//
// The backward runs inside the traced function: autograd::grad of the outputs with tangents
// made by a factory call, so the tracer records the tangents as calls (or, for memory it did
// not see made, constants). Placeholders must come first, and the tangents' shapes are known
// only once the forward ran, so after tracing the graph is rebuilt with the tangents' nodes
// turned into placeholders after the primals.
#include "ember/fx/joint.h"

#include <tuple>

#include "ember/autograd/function.h"
#include "ember/compiler.h"
#include "ember/fx/passes.h"
#include "ember/nn/module.h"
#include "ember/ops/factory.h"

namespace ember {

namespace {

// Rebuilds `traced` (outputs: forward outputs, gradients, tangents) with the last `tangents`
// outputs' nodes as placeholders after the primals, and without them as outputs.
fx::Graph lift_tangents(const fx::Graph& traced, size_t tangents,
                        std::map<std::string, Tensor>& attrs) {
  const std::vector<fx::Node>& nodes = traced.nodes();
  const std::vector<fx::ValueRef> results = nodes.back().args;
  const size_t kept = results.size() - tangents;
  std::map<int, size_t> tangent_nodes;  // node -> tangent index
  for (size_t t = 0; t < tangents; ++t) {
    const fx::ValueRef v = results[kept + t];
    EMBER_CHECK(v.output == 0 && nodes[v.node].outputs.size() == 1 &&
                    (nodes[v.node].kind == fx::NodeKind::Call ||
                     nodes[v.node].kind == fx::NodeKind::GetAttr) &&
                    !tangent_nodes.count(v.node),
                "[make_joint] tangent ", t, " was not recorded as a fresh tensor");
    tangent_nodes[v.node] = t;
  }
  fx::Graph g;
  std::vector<int> remap(nodes.size(), -1);
  auto ref = [&](fx::ValueRef v) {
    return v.is_none() ? v : fx::ValueRef{remap.at(v.node), v.output};
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].kind == fx::NodeKind::Placeholder) {
      remap[i] = g.placeholder(nodes[i].name, nodes[i].outputs[0]).node;
    }
  }
  std::vector<int> tangent_node_of(tangents);
  for (const auto& [node, t] : tangent_nodes) tangent_node_of[t] = node;
  for (size_t t = 0; t < tangents; ++t) {
    const fx::Node& n = nodes[tangent_node_of[t]];
    fx::ValueMeta meta = n.outputs[0];
    meta.requires_grad = false;
    remap[tangent_node_of[t]] = g.placeholder("tangents_" + std::to_string(t + 1), meta).node;
    if (n.kind == fx::NodeKind::GetAttr) attrs.erase(n.target);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const fx::Node& n = nodes[i];
    if (n.kind == fx::NodeKind::Placeholder || tangent_nodes.count(static_cast<int>(i))) continue;
    if (n.kind == fx::NodeKind::GetAttr) {
      remap[i] = g.get_attr(n.name, n.target, n.outputs[0]).node;
    } else if (n.kind == fx::NodeKind::Call) {
      std::vector<fx::ValueRef> args;
      for (fx::ValueRef a : n.args) args.push_back(ref(a));
      std::optional<fx::ValueRef> target;
      if (n.inplace_target) target = ref(*n.inplace_target);
      remap[i] = g.call(n.name, n.prim, std::move(args), target, n.alloc_outputs, n.outputs);
    }
  }
  std::vector<fx::ValueRef> out;
  for (size_t k = 0; k < kept; ++k) out.push_back(ref(results[k]));
  g.output(std::move(out));
  return g;
}

fx::JointGraph trace_joint(const JointFn& fn, const std::vector<Tensor>& primals,
                           const TraceOptions& options, const nn::Module* module) {
  EMBER_CHECK_VALUE(static_cast<bool>(fn), "[make_joint] the function is empty");
  fx::JointGraph joint;
  joint.num_primals = primals.size();
  std::vector<bool> wants_grad;
  for (const Tensor& p : primals) wants_grad.push_back(p.defined() && p.requires_grad());
  size_t num_grads = 0;
  // Runs under the tracer: forward, then the vjps; returns outputs, gradients, tangents.
  auto body = [&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    std::vector<Tensor> outs = fn(xs);
    joint.num_outputs = outs.size();
    joint.tangent_of.assign(outs.size(), -1);
    std::vector<Tensor> diff_outs, tangents, diff_inputs;
    for (size_t i = 0; i < outs.size(); ++i) {
      EMBER_CHECK_VALUE(outs[i].defined(), "[make_joint] output ", i,
                        " of the function is undefined");
      if (!outs[i].requires_grad() || !outs[i].is_floating_point()) continue;
      joint.tangent_of[i] = static_cast<int>(tangents.size());
      diff_outs.push_back(outs[i]);
      // A real tensor also in a fake trace: meta tensors made outside dispatch have no value.
      const Device device = outs[i].device().is_meta() ? Device(kCPU) : outs[i].device();
      tangents.push_back(ones(outs[i].sym_sizes(), TensorOptions(outs[i].dtype()).device(device)));
    }
    // A fake trace gives fn meta twins of the primals, but a module's forward reads its real
    // parameters: differentiate with respect to both, and add what each one gets.
    std::vector<int> also(xs.size(), -1);
    for (size_t i = 0; i < xs.size(); ++i) {
      if (!wants_grad[i]) continue;
      diff_inputs.push_back(xs[i]);
      if (xs[i].is_same(primals[i])) continue;
      also[i] = static_cast<int>(diff_inputs.size());
      diff_inputs.push_back(primals[i]);
    }
    std::vector<Tensor> grads;
    if (!diff_outs.empty() && !diff_inputs.empty()) {
      grads = autograd::grad(diff_outs, diff_inputs, tangents, /*retain_graph=*/false,
                             /*create_graph=*/false, /*allow_unused=*/true);
    }
    joint.grad_of.assign(xs.size(), -1);
    std::vector<Tensor> results = outs;
    for (size_t i = 0, k = 0; i < xs.size(); ++i) {
      if (!wants_grad[i]) continue;
      Tensor g = grads.empty() ? Tensor() : grads[k++];
      if (also[i] >= 0) {
        const Tensor& other = grads.empty() ? Tensor() : grads[k++];
        g = !g.defined() ? other : other.defined() ? g + other : g;
      }
      if (!g.defined()) continue;
      joint.grad_of[i] = static_cast<int>(num_grads++);
      results.push_back(g);
    }
    joint.num_tangents = tangents.size();
    results.insert(results.end(), tangents.begin(), tangents.end());
    return results;
  };
  TraceOptions opts = options;
  opts.functionalize = true;
  // Passes run on the joint graph once its tangents are placeholders (CSE would merge the
  // tangents' equal fills).
  opts.passes = opts.decompose = false;
  fx::GraphModule traced;
  {
    AutoGradMode grad_mode(true);
    traced = module ? make_fx(*module, body, primals, opts) : make_fx(body, primals, opts);
  }
  std::map<std::string, Tensor> attrs = traced.attrs();
  fx::Graph g = lift_tangents(traced.graph(), joint.num_tangents, attrs);
  joint.module = fx::GraphModule(std::move(g), std::move(attrs));
  if (options.passes) joint.module = fx::run_passes(joint.module);
  return joint;
}

std::vector<Tensor> with_parameters(const nn::Module& module, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> all = module.parameters();
  all.insert(all.end(), inputs.begin(), inputs.end());
  return all;
}

}  // namespace

namespace fx {

std::vector<Tensor> JointGraph::operator()(const std::vector<Tensor>& primals,
                                           const std::vector<Tensor>& tangents) const {
  EMBER_CHECK_VALUE(primals.size() == num_primals && tangents.size() == num_tangents,
                    "[JointGraph] expected ", num_primals, " primals and ", num_tangents,
                    " tangents, got ", primals.size(), " and ", tangents.size());
  std::vector<Tensor> in = primals;
  in.insert(in.end(), tangents.begin(), tangents.end());
  const std::vector<Tensor> out = module(in);
  std::vector<Tensor> result(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(num_outputs));
  for (int k : grad_of) result.push_back(k < 0 ? Tensor() : out.at(num_outputs + k));
  return result;
}

}  // namespace fx

fx::JointGraph make_joint(const JointFn& fn, const std::vector<Tensor>& primals,
                          const TraceOptions& options) {
  return trace_joint(fn, primals, options, nullptr);
}

fx::JointGraph make_joint(const JointFn& fn, const std::vector<Tensor>& primals) {
  return trace_joint(fn, primals, TraceOptions{}, nullptr);
}

fx::JointGraph make_joint(const nn::Module& module, const JointFn& fn,
                          const std::vector<Tensor>& inputs, const TraceOptions& options) {
  const size_t num_params = module.parameters().size();
  // fn sees the inputs alone; the parameters are placeholders it reaches through the module.
  auto body = [&](const std::vector<Tensor>& xs) {
    return fn(std::vector<Tensor>(xs.begin() + static_cast<std::ptrdiff_t>(num_params), xs.end()));
  };
  // The spec speaks of fn's inputs: the parameters before them are static.
  TraceOptions opts = options;
  if (!opts.dynamic.inputs.empty()) {
    opts.dynamic.inputs.insert(opts.dynamic.inputs.begin(), num_params, {});
  }
  return trace_joint(body, with_parameters(module, inputs), opts, &module);
}

fx::JointGraph make_joint(const nn::Module& module, const JointFn& fn,
                          const std::vector<Tensor>& inputs) {
  return make_joint(module, fn, inputs, TraceOptions{});
}

namespace {

// The compiled function's state: the two graphs and what they were traced for.
struct Compiled {
  fx::PartitionedGraphs graphs;
  JointFn forward, backward;        // the graphs' compiled forms
  std::vector<bool> requires_grad;  // per input, as traced

  // `self` is this: the autograd node keeps the graphs alive past the compiled function.
  static std::vector<Tensor> run(const std::shared_ptr<const Compiled>& self,
                                 const std::vector<Tensor>& inputs) {
    const fx::PartitionedGraphs& graphs = self->graphs;
    const std::vector<bool>& requires_grad = self->requires_grad;
    EMBER_CHECK_VALUE(inputs.size() == requires_grad.size(), "[aot_function] expected ",
                      requires_grad.size(), " inputs, got ", inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const bool rg = inputs[i].defined() && inputs[i].requires_grad();
      EMBER_CHECK_VALUE(rg == requires_grad[i], "[aot_function] input ", i,
                        (rg ? " requires grad" : " does not require grad"),
                        ", but the function was traced with it ",
                        (requires_grad[i] ? "requiring grad" : "not requiring grad"),
                        "; compile it again for these inputs");
    }
    std::vector<Tensor> fwd;
    {
      NoGradGuard no_grad;
      fwd = self->forward(inputs);
    }
    const auto outputs_end = fwd.begin() + static_cast<std::ptrdiff_t>(graphs.num_outputs);
    std::vector<Tensor> outs(fwd.begin(), outputs_end);
    if (!is_grad_enabled()) return outs;
    std::vector<Tensor> saved(outputs_end, fwd.end());
    auto node = std::make_shared<autograd::CustomNode>(
        "CompiledFunctionBackward",
        [self](autograd::AutogradContext* ctx, std::vector<Tensor> grads) {
          const fx::PartitionedGraphs& graphs = self->graphs;
          std::vector<Tensor> in = ctx->get_saved_variables();
          for (size_t i = 0; i < graphs.num_outputs; ++i) {
            // The graph was traced with contiguous tangents; an incoming gradient may be an
            // expanded one (sum's), as in AOTAutograd, which also makes them contiguous.
            if (graphs.tangent_of[i] >= 0) in.push_back(grads.at(i).contiguous());
          }
          const std::vector<Tensor> g = self->backward(in);
          std::vector<Tensor> result;
          for (int k : graphs.grad_of) result.push_back(k < 0 ? Tensor() : g.at(k));
          return result;
        });
    std::vector<int> positions(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) positions[i] = static_cast<int>(i);
    node->set_inputs(inputs, std::move(positions));
    node->ctx().save_for_backward(std::move(saved));
    // Outputs without a tangent do not depend differentiably on the inputs.
    std::vector<Tensor> non_diff;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (graphs.tangent_of[i] < 0) non_diff.push_back(outs[i]);
    }
    node->ctx().mark_non_differentiable(non_diff);
    return node->wrap_outputs(std::move(outs));
  }
};

}  // namespace

JointFn aot_compile_joint(const fx::JointGraph& joint, const std::vector<Tensor>& inputs,
                          const AotOptions& options) {
  auto compiled = std::make_shared<Compiled>();
  compiled->graphs = fx::partition(joint, options.partition);
  auto compile = [](const GraphCompiler& compiler, const fx::GraphModule& gm) -> JointFn {
    if (compiler) return compiler(gm);
    return [&gm](const std::vector<Tensor>& xs) { return gm(xs); };  // gm lives in `compiled`
  };
  if (options.pair_compiler) {
    std::tie(compiled->forward, compiled->backward) =
        options.pair_compiler(compiled->graphs.forward, compiled->graphs.backward);
  } else {
    compiled->forward = compile(options.fw_compiler, compiled->graphs.forward);
    compiled->backward = compile(options.bw_compiler ? options.bw_compiler : options.fw_compiler,
                                 compiled->graphs.backward);
  }
  for (const Tensor& t : inputs) {
    compiled->requires_grad.push_back(t.defined() && t.requires_grad());
  }
  std::shared_ptr<const Compiled> state = compiled;
  return [state](const std::vector<Tensor>& xs) { return Compiled::run(state, xs); };
}

JointFn aot_function(const JointFn& fn, const std::vector<Tensor>& example_inputs,
                     const AotOptions& options) {
  return aot_compile_joint(make_joint(fn, example_inputs), example_inputs, options);
}

JointFn aot_module(const nn::Module& module, const JointFn& fn,
                   const std::vector<Tensor>& example_inputs, const AotOptions& options) {
  JointFn compiled = aot_compile_joint(make_joint(module, fn, example_inputs),
                                       with_parameters(module, example_inputs), options);
  return [&module, compiled](const std::vector<Tensor>& xs) {
    return compiled(with_parameters(module, xs));
  };
}

}  // namespace ember
