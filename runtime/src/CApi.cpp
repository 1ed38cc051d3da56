//===- CApi.cpp - the C view of the runtime
//---------------------------------===//
#include "jfa/attention.h"
#include "jfa/attention.hpp"
#include "jfa/runtime.h"
#include "jfa/runtime.hpp"

#include <fmt/format.h>

#include <string>

struct jfa_module {
  jfa::rt::Module module;
};

struct jfa_attention {
  jfa::rt::Attention attention;
};

namespace {
thread_local std::string lastError;

template <typename F> int guarded(F &&f) {
  try {
    f();
    lastError.clear();
    return 0;
  } catch (const std::exception &e) {
    lastError = e.what();
  } catch (...) {
    lastError = "unknown error";
  }
  return -1;
}

int fail(const char *message) {
  lastError = message;
  return -1;
}
} // namespace

extern "C" {

const char *jfa_last_error(void) { return lastError.c_str(); }

const char *jfa_runtime_version(void) { return jfa::rt::version(); }

int jfa_module_load_file(const char *cubin_path, const char *metadata_path,
                         jfa_module_t *module) {
  if (!cubin_path || !module)
    return fail("jfa_module_load_file: cubin_path and module must not be NULL");
  return guarded([&] {
    *module = new jfa_module{jfa::rt::Module::loadFile(
        cubin_path, metadata_path ? metadata_path : "")};
  });
}

int jfa_module_load_data(const void *cubin, size_t size, const char *metadata,
                         jfa_module_t *module) {
  if (!cubin || !metadata || !module)
    return fail("jfa_module_load_data: cubin, metadata and module must not be "
                "NULL");
  return guarded([&] {
    *module = new jfa_module{jfa::rt::Module::loadData(cubin, size, metadata)};
  });
}

void jfa_module_destroy(jfa_module_t module) { delete module; }

int jfa_kernel_info(jfa_module_t module, const char *kernel, unsigned *threads,
                    size_t *shared_bytes) {
  if (!module || !kernel)
    return fail("jfa_kernel_info: module and kernel must not be NULL");
  return guarded([&] {
    const jfa::rt::KernelInfo &k = module->module.kernel(kernel);
    if (threads)
      *threads = k.threads;
    if (shared_bytes)
      *shared_bytes = k.sharedBytes;
  });
}

int jfa_launch(jfa_module_t module, const char *kernel, unsigned grid_x,
               unsigned grid_y, unsigned grid_z, const jfa_arg *args,
               int num_args, CUstream stream) {
  if (!module || !kernel)
    return fail("jfa_launch: module and kernel must not be NULL");
  if (num_args < 0 || (num_args > 0 && !args))
    return fail("jfa_launch: args must hold num_args entries");
  return guarded([&] {
    std::vector<jfa::rt::Arg> converted;
    for (int i = 0; i < num_args; ++i) {
      const jfa_arg &a = args[i];
      switch (a.kind) {
      case JFA_ARG_TENSOR: {
        const auto &t = a.value.tensor;
        if (t.rank < 1 || t.rank > 5 || !t.shape || !t.element_type)
          throw jfa::rt::Error(
              fmt::format("argument {}: a tensor needs an element type and a "
                          "shape of rank 1 to 5",
                          i));
        std::vector<uint64_t> shape(t.shape, t.shape + t.rank), strides;
        if (t.strides)
          strides.assign(t.strides, t.strides + t.rank);
        converted.push_back(
            jfa::rt::Arg::tensor(t.data, t.element_type, shape, strides));
        break;
      }
      case JFA_ARG_PTR:
        converted.push_back(jfa::rt::Arg::pointer(a.value.ptr));
        break;
      case JFA_ARG_I32:
        converted.push_back(jfa::rt::Arg::i32(a.value.i32));
        break;
      case JFA_ARG_I64:
        converted.push_back(jfa::rt::Arg::i64(a.value.i64));
        break;
      case JFA_ARG_F32:
        converted.push_back(jfa::rt::Arg::f32(a.value.f32));
        break;
      case JFA_ARG_F64:
        converted.push_back(jfa::rt::Arg::f64(a.value.f64));
        break;
      default:
        throw jfa::rt::Error(
            fmt::format("argument {}: unknown kind {}", i, int(a.kind)));
      }
    }
    module->module.launch(kernel, {grid_x, grid_y, grid_z}, converted, stream);
  });
}

int jfa_attention_create(const char *kernel_dir, jfa_attention_t *out) {
  if (!out)
    return fail("jfa_attention_create: out must not be NULL");
  *out = nullptr;
  return guarded([&] {
    *out = new jfa_attention{kernel_dir ? jfa::rt::Attention::load(kernel_dir)
                                        : jfa::rt::Attention::embedded()};
  });
}

void jfa_attention_destroy(jfa_attention_t attention) { delete attention; }

int jfa_attention_has_kernel(jfa_attention_t attention, const char *arch) {
  if (!attention || !arch)
    return fail("jfa_attention_has_kernel: attention and arch must not be "
                "NULL");
  return attention->attention.hasKernel(arch) ? 1 : 0;
}

int jfa_check_offsets(const int32_t *offsets, size_t count,
                      int64_t total_tokens, int64_t max_seqlen) {
  return guarded(
      [&] { jfa::rt::checkOffsets(offsets, count, total_tokens, max_seqlen); });
}

int jfa_check_offsets_k(const int32_t *offsets_k, size_t count,
                        int64_t total_tokens_k, int64_t max_seqlen_k) {
  return guarded([&] {
    jfa::rt::checkKeyOffsets(offsets_k, count, total_tokens_k, max_seqlen_k);
  });
}

size_t jfa_attention_forward_args_size(void) {
  return sizeof(jfa_attention_forward_args);
}

int jfa_attention_forward(jfa_attention_t attention,
                          const jfa_attention_forward_args *args,
                          CUstream stream) {
  if (!attention || !args)
    return fail("jfa_attention_forward: attention and args must not be NULL");
  if (!args->dtype)
    return fail("dtype is NULL; q, k, v and o must be \"bf16\"");
  if (!args->offsets_dtype)
    return fail("offsets_dtype is NULL; offsets must be \"i32\"");
  return guarded([&] {
    jfa::rt::AttentionForwardArgs a;
    a.q = args->q;
    a.k = args->k;
    a.v = args->v;
    a.o = args->o;
    for (int i = 0; i < 3; ++i) {
      a.qStrides[i] = args->q_strides[i];
      a.kStrides[i] = args->k_strides[i];
      a.vStrides[i] = args->v_strides[i];
      a.oStrides[i] = args->o_strides[i];
    }
    a.lse = args->lse;
    a.offsets = args->offsets;
    a.dtype = args->dtype;
    a.offsetsDtype = args->offsets_dtype;
    a.totalTokens = args->total_tokens;
    a.numHeads = args->num_heads;
    a.headDim = args->head_dim;
    a.batch = args->batch;
    a.maxSeqlen = args->max_seqlen;
    a.causal = args->causal != 0;
    a.softmaxScale = args->softmax_scale;
    a.checkOffsets = args->check_offsets != 0;
    a.offsetsK = args->offsets_k;
    a.totalTokensK = args->total_tokens_k;
    a.maxSeqlenK = args->max_seqlen_k;
    a.numKvHeads = args->num_kv_heads;
    // 0 (a zero-initialized struct): no window, whatever the two hold.
    if (args->use_window) {
      a.windowLeft = args->window_left;
      a.windowRight = args->window_right;
    }
    // NULL (a zero-initialized struct): softmax.
    if (args->activation)
      a.activation = args->activation;
    a.blockMaskBits = args->block_mask_bits;
    a.blockMaskHeads = args->block_mask_heads;
    attention->attention.forward(a, stream);
  });
}

int jfa_attention_has_backward(jfa_attention_t attention, const char *arch) {
  if (!attention || !arch)
    return fail("jfa_attention_has_backward: attention and arch must not be "
                "NULL");
  // 0 with the reason in jfa_last_error() when absent.
  return guarded([&] {
           if (!attention->attention.hasBackward(arch))
             throw jfa::rt::Error(
                 attention->attention.backwardAbsentReason(arch));
         }) == 0
             ? 1
             : 0;
}

namespace {
jfa::rt::AttentionBackwardArgs
backwardArgs(const jfa_attention_backward_args &c) {
  jfa::rt::AttentionBackwardArgs a;
  a.dout = c.dout;
  a.q = c.q;
  a.k = c.k;
  a.v = c.v;
  a.o = c.o;
  a.dq = c.dq;
  a.dk = c.dk;
  a.dv = c.dv;
  for (int i = 0; i < 3; ++i) {
    a.doutStrides[i] = c.dout_strides[i];
    a.qStrides[i] = c.q_strides[i];
    a.kStrides[i] = c.k_strides[i];
    a.vStrides[i] = c.v_strides[i];
    a.oStrides[i] = c.o_strides[i];
    a.dqStrides[i] = c.dq_strides[i];
    a.dkStrides[i] = c.dk_strides[i];
    a.dvStrides[i] = c.dv_strides[i];
  }
  a.lse = c.lse;
  a.offsets = c.offsets;
  a.workspace = c.workspace;
  a.workspaceBytes = c.workspace_bytes;
  a.dtype = c.dtype;
  a.offsetsDtype = c.offsets_dtype;
  a.totalTokens = c.total_tokens;
  a.numHeads = c.num_heads;
  a.headDim = c.head_dim;
  a.batch = c.batch;
  a.maxSeqlen = c.max_seqlen;
  a.causal = c.causal != 0;
  a.softmaxScale = c.softmax_scale;
  a.checkOffsets = c.check_offsets != 0;
  a.offsetsK = c.offsets_k;
  a.totalTokensK = c.total_tokens_k;
  a.maxSeqlenK = c.max_seqlen_k;
  a.numKvHeads = c.num_kv_heads;
  // 0 (a zero-initialized struct): no window, whatever the two hold.
  if (c.use_window) {
    a.windowLeft = c.window_left;
    a.windowRight = c.window_right;
  }
  // NULL (a zero-initialized struct): softmax.
  if (c.activation)
    a.activation = c.activation;
  a.blockMaskBits = c.block_mask_bits;
  a.blockMaskHeads = c.block_mask_heads;
  return a;
}

int checkStrings(const jfa_attention_backward_args &c) {
  if (!c.dtype)
    return fail("dtype is NULL; dout, q, k, v, o, dq, dk and dv must be "
                "\"bf16\"");
  if (!c.offsets_dtype)
    return fail("offsets_dtype is NULL; offsets must be \"i32\"");
  return 0;
}
} // namespace

size_t jfa_attention_backward_args_size(void) {
  return sizeof(jfa_attention_backward_args);
}

size_t jfa_attention_block_mask_bytes(int64_t heads, int64_t total_tokens,
                                      int64_t total_tokens_k) {
  return jfa::rt::blockMaskBitsBytes(heads, total_tokens, total_tokens_k);
}

int jfa_attention_block_mask_from_lists(
    const int32_t *kv_num_blocks, const int32_t *kv_indices,
    const int32_t *full_kv_num_blocks, const int32_t *full_kv_indices,
    int64_t heads, int64_t q_blocks, int64_t max_kv_blocks,
    int64_t total_tokens, int64_t total_tokens_k, void *bits,
    size_t bits_bytes) {
  return guarded([&] {
    jfa::rt::blockMaskFromLists(kv_num_blocks, kv_indices, full_kv_num_blocks,
                                full_kv_indices, heads, q_blocks, max_kv_blocks,
                                total_tokens, total_tokens_k,
                                static_cast<uint32_t *>(bits), bits_bytes);
  });
}

int jfa_attention_backward_workspace_size(
    const jfa_attention_backward_args *args, size_t *bytes) {
  if (!args || !bytes)
    return fail("jfa_attention_backward_workspace_size: args and bytes must "
                "not be NULL");
  if (checkStrings(*args))
    return -1;
  return guarded([&] {
    *bytes = jfa::rt::attentionBackwardWorkspaceBytes(backwardArgs(*args));
  });
}

int jfa_attention_backward(jfa_attention_t attention,
                           const jfa_attention_backward_args *args,
                           CUstream stream) {
  if (!attention || !args)
    return fail("jfa_attention_backward: attention and args must not be NULL");
  if (checkStrings(*args))
    return -1;
  return guarded(
      [&] { attention->attention.backward(backwardArgs(*args), stream); });
}

int jfa_synchronize(void) {
  return guarded([] { jfa::rt::synchronize(); });
}

} // extern "C"
