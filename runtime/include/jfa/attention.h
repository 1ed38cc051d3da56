/*===- attention.h - jagged attention (C API) -------------------*- C -*-===//
 *
 * A C view of attention.hpp: the runtime entry points of the jagged (packed
 * variable-length) attention kernels of kernels/jagged_attention/, forward
 * and backward.
 * Like the rest of the C API (runtime.h), functions return 0 on success and
 * -1 on failure; jfa_last_error() then gives the message (per thread), which
 * names the argument at fault.
 *
 * Shapes: T tokens (all sequences packed), H heads, head dim D, B sequences.
 * Sequence b is tokens [offsets[b], offsets[b+1]).
 *
 *===----------------------------------------------------------------------===*/
#ifndef JFA_ATTENTION_H
#define JFA_ATTENTION_H

#include "jfa/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jfa_attention *jfa_attention_t;

/* Makes an attention handle.
 *
 * kernel_dir: a folder holding the variants of attention_fwd_sm90 (sm_90a)
 * and/or attention_fwd_sm100 (sm_100a), one per head dim and mask, each with
 * its metadata (<cubin>.meta), as `jfac compile --arch ARCH -P head_dim=D
 * -P causal=C` writes them and named <kernel>_<arch>.<anything>.cubin, e.g.
 * attention_fwd_sm90_sm_90a.head_dim=64.causal=0.cubin (what
 * scripts/build-package.sh writes); a call uses the one whose metadata
 * records its head dim and mask. NULL:
 * the kernels embedded in the library at build time (CMake option
 * JFA_EMBED_ATTENTION_KERNELS).
 *
 * Reads and checks the metadata (kernel name, arch, parameters) but needs no
 * GPU: the cubins are loaded onto a context the first time
 * jfa_attention_forward runs there. A folder with only one of the two
 * cubins is fine; forward then fails on the other target's devices. */
int jfa_attention_create(const char *kernel_dir, jfa_attention_t *out);
void jfa_attention_destroy(jfa_attention_t attention);

/* Whether the handle has the kernel for arch ("sm_90a" or "sm_100a"): 1 yes,
 * 0 no, -1 on a NULL argument. */
int jfa_attention_has_kernel(jfa_attention_t attention, const char *arch);

typedef struct {
  /* bf16 [T, H, D]. q, k and v need head stride D, dim stride 1, a token
   * stride >= H*D that is a multiple of 8 elements (16 bytes) and a 16-byte
   * aligned base (TMA rules). o is written for every token and follows the
   * same rules (so the kernels may store 16-byte vectors), its token stride
   * also below 2^31 (a 32-bit kernel parameter). */
  CUdeviceptr q, k, v, o;
  /* In elements, ordered [token, head, dim]. */
  int64_t q_strides[3], k_strides[3], v_strides[3], o_strides[3];
  /* f32 [H, T], contiguous, 4-byte aligned: written with the natural-log
   * log-sum-exp of each row's scaled scores. */
  CUdeviceptr lse;
  /* int32 [B+1] in device memory, 4-byte aligned: offsets[0] == 0,
   * non-decreasing, offsets[B] == T. Empty sequences are legal. */
  CUdeviceptr offsets;
  const char *dtype;         /* element type of q, k, v, o: must be "bf16" */
  const char *offsets_dtype; /* must be "i32" */
  /* T, H, D (64 or 128), B and an upper bound of the sequence lengths; all
   * >= 0 and < 2^31. When T, H, B or max_seqlen is 0 there is nothing to
   * compute: the call checks the arguments and returns without touching the
   * device (the pointers may then be 0). */
  int64_t total_tokens, num_heads, head_dim, batch, max_seqlen;
  int causal; /* nonzero: causal masking (q and k have the same lengths) */
  /* 0: 1/sqrt(head_dim). Negative, NaN or infinite: an error. */
  float softmax_scale;
  /* Nonzero: copy the offsets to the host (this synchronizes the stream)
   * and check them (offsets[0] == 0, non-decreasing, offsets[B] == T, no
   * sequence longer than max_seqlen) before launching; the error names the
   * first bad entry. Zero: the offsets are trusted. */
  int check_offsets;
} jfa_attention_forward_args;

/* Checks `count` (= B + 1) offsets in host memory as check_offsets does:
 * offsets[0] == 0, non-decreasing, offsets[B] == total_tokens, no sequence
 * longer than max_seqlen. 0 when they are good; -1 and jfa_last_error()
 * naming the first bad entry otherwise. The one offsets check of the
 * project: the Python package uses it too. */
int jfa_check_offsets(const int32_t *offsets, size_t count,
                      int64_t total_tokens, int64_t max_seqlen);

/* Runs the attention forward pass on stream (NULL: the legacy default
 * stream) of the current context's device, making device 0's primary
 * context current if no context is. Picks the kernel for the device:
 * compute capability 9.0 -> attention_fwd_sm90 (sm_90a), 10.0 ->
 * attention_fwd_sm100 (sm_100a); any other device is an error. Launches a
 * persistent 1-d grid of min(#SMs, B * H * ceil(max_seqlen / 128)) CTAs and
 * returns without waiting for it (unless check_offsets). Thread-safe. */
int jfa_attention_forward(jfa_attention_t attention,
                          const jfa_attention_forward_args *args,
                          CUstream stream);

/* Whether the handle has the backward's kernels for arch: 1 yes, 0 no (the
 * reason is then jfa_last_error()), -1 on a NULL argument. They come from
 * the kernel_dir (attention_bwd_<suffix>_<arch>.*.cubin per head dim and
 * mask, and attention_bwd_{delta,schedule,dq_convert}_<arch>.cubin, as
 * scripts/build-package.sh writes them) or, for a handle made with NULL,
 * from the library (JFA_EMBED_ATTENTION_KERNELS embeds them beside the
 * forward's). */
int jfa_attention_has_backward(jfa_attention_t attention, const char *arch);

typedef struct {
  /* bf16 [T, H, D], read: the upstream gradient of o (dout), and forward's
   * q, k, v and the o it wrote. The rules of jfa_attention_forward_args'
   * q, k, v apply to each (o's too). */
  CUdeviceptr dout, q, k, v, o;
  int64_t dout_strides[3], q_strides[3], k_strides[3], v_strides[3],
      o_strides[3];
  /* f32 [H, T], contiguous: forward's log-sum-exp. */
  CUdeviceptr lse;
  /* int32 [B+1]: as in the forward. */
  CUdeviceptr offsets;
  /* bf16 [T, H, D], written: the gradients. Rules of the forward's o; dk
   * and dv have the same token stride. No output may overlap an input,
   * another output or the workspace. */
  CUdeviceptr dq, dk, dv;
  int64_t dq_strides[3], dk_strides[3], dv_strides[3];
  /* Scratch device memory, 256-byte aligned, of at least
   * jfa_attention_backward_workspace_size bytes; untouched by the caller
   * until the call's work on the stream is done. */
  CUdeviceptr workspace;
  size_t workspace_bytes;
  const char *dtype;         /* must be "bf16" */
  const char *offsets_dtype; /* must be "i32" */
  /* As in the forward (the same values the forward was called with). */
  int64_t total_tokens, num_heads, head_dim, batch, max_seqlen;
  int causal;
  float softmax_scale;
  int check_offsets;
} jfa_attention_backward_args;

/* The bytes of workspace a backward call with args' sizes (and dk's token
 * stride) needs; 0 when there is nothing to compute. The addresses are not
 * looked at; the sizes and the dk and dq token strides are checked. */
int jfa_attention_backward_workspace_size(
    const jfa_attention_backward_args *args, size_t *bytes);

/* Runs the attention backward on stream (NULL: the legacy default stream)
 * of the current context's device: dq's f32 accumulator (in the workspace)
 * is zeroed, then four kernels run in order: the work schedule, delta =
 * rowsum(o * dout), the backward kernel for the device, head dim and mask
 * (dk, dv written, dq accumulated), and dq's conversion to bf16. Returns
 * without waiting (unless check_offsets); nothing else synchronizes, so the
 * call can be captured in a CUDA graph. dq's last bits may differ from run
 * to run (atomic accumulation). Thread-safe. */
int jfa_attention_backward(jfa_attention_t attention,
                           const jfa_attention_backward_args *args,
                           CUstream stream);

#ifdef __cplusplus
}
#endif

#endif /* JFA_ATTENTION_H */
