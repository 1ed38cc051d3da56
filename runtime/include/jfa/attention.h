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
 * Sequence b is tokens [offsets[b], offsets[b+1]). The forward and the
 * backward also take keys of other lengths (cross-attention: T_k key
 * tokens, offsets_k), fewer k/v heads (grouped-query attention: H_kv), a
 * sliding window and a GDPA activation (silu or gelu_tanh in place of
 * softmax).
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
 * and/or attention_fwd_sm100 (sm_100a), one per head dim, mask and general
 * (the variant with a window, grouped-query k/v heads and cross-attention),
 * each with its metadata (<cubin>.meta), as `jfac compile --arch ARCH -P
 * head_dim=D -P causal=C -P general=G` writes them and named
 * <kernel>_<arch>.<anything>.cubin, e.g.
 * attention_fwd_sm90_sm_90a.head_dim=64.causal=0.general=0.cubin (what
 * scripts/build-package.sh writes); a call uses the one whose metadata
 * records its head dim, mask and general (metadata without "general", from
 * a kernel built before it, is refused: rebuild). The forward also runs
 * attention_bwd_schedule_<arch>.cubin first (its work queue's schedule),
 * so the folder needs that kernel too. NULL:
 * the kernels embedded in the library at build time (CMake option
 * JFA_EMBED_ATTENTION_KERNELS).
 *
 * Reads and checks the metadata (kernel name, arch, parameters) but needs no
 * GPU: the cubins are loaded onto a context the first time
 * jfa_attention_forward runs there. A folder with only one of the two
 * cubins is fine; forward then fails on the other target's devices. */
int jfa_attention_create(const char *kernel_dir, jfa_attention_t *out);
void jfa_attention_destroy(jfa_attention_t attention);

/* Whether the handle has the forward for arch ("sm_90a" or "sm_100a"): its
 * kernel and the schedule kernel it runs first. 1 yes, 0 no, -1 on a NULL
 * argument. */
int jfa_attention_has_kernel(jfa_attention_t attention, const char *arch);

/* The forward's arguments. Zero-initialize the struct (`= {0}`) and set what
 * the call uses: every field added after check_offsets (issue 20:
 * cross-attention, grouped-query k/v heads, sliding window, the GDPA
 * activation) means "off" when 0 (NULL), so such a call is the plain
 * forward. The struct grew with them: a host compiled against an older
 * attention.h must be recompiled (its struct is shorter than the one this
 * library reads); jfa_attention_forward_args_size() is this library's
 * sizeof, for a host that wants to check. */
typedef struct {
  /* bf16: q and o [T, H, D], k and v [T_k, H_kv, D] (T_k = T and H_kv = H
   * unless offsets_k and num_kv_heads say otherwise). q, k and v need head
   * stride D, dim stride 1, a token stride >= (heads)*D that is a multiple
   * of 8 elements (16 bytes) and a 16-byte aligned base (TMA rules). o is
   * written for every token and follows the same rules (so the kernels may
   * store 16-byte vectors), its token stride also below 2^31 (a 32-bit
   * kernel parameter). */
  CUdeviceptr q, k, v, o;
  /* In elements, ordered [token, head, dim]. */
  int64_t q_strides[3], k_strides[3], v_strides[3], o_strides[3];
  /* f32 [H, T], contiguous, 4-byte aligned: written with the natural-log
   * log-sum-exp of each row's scaled scores (-inf for a query that sees no
   * key; its o row is 0). Under a GDPA activation (below) there is no lse:
   * it is neither written nor checked, and may be 0. */
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
  /* Nonzero: causal masking, aligned bottom-right as FlashAttention's:
   * query i of a sequence (0-based in it) sees key j iff j <= i + len_k -
   * len_q (j <= i for self-attention). */
  int causal;
  /* 0: 1/sqrt(head_dim). Negative, NaN or infinite: an error. */
  float softmax_scale;
  /* Nonzero: copy the offsets (and offsets_k) to the host (this
   * synchronizes the stream) and check them (offsets[0] == 0,
   * non-decreasing, offsets[B] == T, no sequence longer than max_seqlen;
   * offsets_k likewise against total_tokens_k and max_seqlen_k) before
   * launching; the error names the first bad entry. Zero: the offsets are
   * trusted. */
  int check_offsets;

  /* Added for issue 20; all 0 (a zero-initialized struct): off. */

  /* Cross-attention (keys of other lengths than the queries): int32 [B+1] in
   * device memory, 4-byte aligned, the rules of offsets against
   * total_tokens_k (T_k, the tokens of k and v) and max_seqlen_k (>= every
   * len_k = offsets_k[b+1] - offsets_k[b]); sequence b's queries attend to
   * its keys, k's tokens [offsets_k[b], offsets_k[b+1]). A sequence may have
   * 0 queries or 0 keys; with T_k == 0 the call writes o = 0 and lse = -inf
   * (driver memsets on the stream) and launches nothing. 0: self-attention
   * (the keys are the queries' tokens), and then total_tokens_k and
   * max_seqlen_k must be 0. Causal and the window align each sequence's
   * queries with the end of its keys (shift = len_k - len_q). */
  CUdeviceptr offsets_k;
  int64_t total_tokens_k, max_seqlen_k;
  /* Grouped-query (GQA) / multi-query (MQA) attention: H_kv, the heads of k
   * and v; num_heads must be a multiple of it, and q head h reads k/v head
   * h / (num_heads / num_kv_heads). 0: num_heads. */
  int64_t num_kv_heads;
  /* Nonzero: a sliding window, as FlashAttention's window_size: query i
   * sees key j only if j >= i + shift - window_left and j <= i + shift +
   * window_right (shift = len_k - len_q, 0 for self-attention), each -1 for
   * unbounded on that side; below -1 is an error, and so is causal with
   * window_right > 0 (causal already means window_right = 0; causal with
   * window_right 0 or -1 is fine). A query that sees no key gets o = 0 and
   * lse = -inf. Zero: no window (window_left and window_right are then not
   * read). */
  int use_window;
  int64_t window_left, window_right;
  /* The activation in place of softmax (GDPA, generalized dot-product
   * attention). NULL (a zero-initialized struct) or "softmax": softmax
   * attention. "silu" or "gelu_tanh" (tanh-approximated gelu): o = sum_j
   * act(softmax_scale * q.k_j) v_j over the keys the query sees (the mask
   * of causal, the window and cross-attention as above), not normalized; a
   * query that sees no key gets o = 0. lse is then not written (it may be
   * 0), and with T_k == 0 only o is zeroed. Works with every other option
   * (the kernels' general variant with the activation runs: general = 2
   * for silu, 3 for gelu_tanh). Any other string is an error naming
   * activation. */
  const char *activation;

  /* Added for block-sparse attention (issue 20); 0: off. A mask over the
   * packed token axes in blocks of 128 tokens: query t and key s may attend
   * only if block (t / 128, s / 128) is listed (and the other masks let
   * them); the kernels skip the tiles with no listed block.
   * block_mask_heads: 0 none; 1 one mask for every q head; num_heads one
   * per q head (anything else is an error). block_mask_bits: int32 words
   * [block_mask_heads, ceil(T / 128), ceil(ceil(T_k / 128) / 32)] in device
   * memory, 4-byte aligned: bit kb % 32 of word kb / 32 of row (h, qb) is
   * set iff block (qb, kb) is listed (jfa_attention_block_mask_bytes sizes
   * it; python/jfa builds it from a FlexAttention BlockMask or its
   * kv_num_blocks / kv_indices). Works with every other option (the
   * kernels' general variant 4 + the activation runs). To list block
   * (qb, kb) of head h in a host copy (zeroed, then copied to the device):
   *   int64_t q_blocks = (T + 127) / 128, k_blocks = (T_k + 127) / 128;
   *   int64_t words = (k_blocks + 31) / 32;  (at least 1)
   *   bits[(h * q_blocks + qb) * words + kb / 32] |= 1u << (kb % 32);
   * (h = 0 for a mask shared by the heads; uint32_t words), or fill it from
   * FlexAttention's lists with jfa_attention_block_mask_from_lists. */
  CUdeviceptr block_mask_bits;
  int64_t block_mask_heads;
} jfa_attention_forward_args;

/* Bytes of a block-sparse mask (block_mask_bits) of `heads` rows of blocks
 * over total_tokens queries and total_tokens_k keys (T_k; pass total_tokens
 * for self-attention): heads * ceil(T / 128) * ceil(ceil(T_k / 128) / 32) *
 * 4. */
size_t jfa_attention_block_mask_bytes(int64_t heads, int64_t total_tokens,
                                      int64_t total_tokens_k);

/* Fills a host copy of the mask (bits: bits_bytes bytes, at least
 * jfa_attention_block_mask_bytes(heads, total_tokens, total_tokens_k)) from
 * a FlexAttention BlockMask's lists, int32 in host memory: kv_num_blocks
 * [heads, q_blocks] (the number of listed key blocks of each row) and
 * kv_indices [heads, q_blocks, max_kv_blocks] (the first kv_num_blocks of
 * each row are the listed key blocks, in [0, ceil(T_k / 128))); q_blocks
 * must be ceil(T / 128). full_kv_num_blocks and full_kv_indices (the same
 * layout) are the BlockMask's full blocks, which FlexAttention keeps in
 * lists of their own: pass them too (a mask made by create_block_mask has
 * them; NULL, NULL when there are none), or those blocks are skipped. Bits
 * not listed are cleared. Copy the result to the device for block_mask_bits
 * (block_mask_heads = heads). An entry out of range is an error naming it
 * ("full_kv_indices[h][qb][i] = ..."). Returns 0, or -1 with
 * jfa_last_error() set. */
int jfa_attention_block_mask_from_lists(
    const int32_t *kv_num_blocks, const int32_t *kv_indices,
    const int32_t *full_kv_num_blocks, const int32_t *full_kv_indices,
    int64_t heads, int64_t q_blocks, int64_t max_kv_blocks,
    int64_t total_tokens, int64_t total_tokens_k, void *bits,
    size_t bits_bytes);

/* sizeof(jfa_attention_forward_args) as this library was compiled: a host
 * (or a binding such as the Python package's ctypes mirror) compares it with
 * its own to catch a struct of another version. */
size_t jfa_attention_forward_args_size(void);

/* Checks `count` (= B + 1) offsets in host memory as check_offsets does:
 * offsets[0] == 0, non-decreasing, offsets[B] == total_tokens, no sequence
 * longer than max_seqlen. 0 when they are good; -1 and jfa_last_error()
 * naming the first bad entry otherwise. The one offsets check of the
 * project: the Python package uses it too. */
int jfa_check_offsets(const int32_t *offsets, size_t count,
                      int64_t total_tokens, int64_t max_seqlen);
/* The same check of a cross-attention's offsets_k against total_tokens_k and
 * max_seqlen_k (the message names those). */
int jfa_check_offsets_k(const int32_t *offsets_k, size_t count,
                        int64_t total_tokens_k, int64_t max_seqlen_k);

/* Runs the attention forward pass on stream (NULL: the legacy default
 * stream) of the current context's device, making device 0's primary
 * context current if no context is. Picks the kernel for the device:
 * compute capability 9.0 -> attention_fwd_sm90 (sm_90a), 10.0 ->
 * attention_fwd_sm100 (sm_100a), or a specialization of it for the
 * variant (attention_fwd_sm90_q192 for head_dim 64, plain attention:
 * non-causal, or causal with max_seqlen >= 2048);
 * any other device is an error; and its
 * variant for head_dim, causal and general (general=2 for activation
 * "silu", 3 for "gelu_tanh"; else general=1 iff offsets_k, num_kv_heads <
 * num_heads, or a window that bounds something causal does not: use_window
 * with window_left >= 0, or window_right >= 0 without causal; else 0).
 * Launches attention_bwd_schedule (the forward's work queue, int32 [2 + B *
 * q_tiles] in stream-ordered memory from the runtime's pool) and then a
 * persistent 1-d grid of min(#SMs, B * H * q_tiles) CTAs, q_tiles =
 * ceil(min(max_seqlen, T) / R) for the kernel's q tile of R rows (128, or
 * 192 for attention_fwd_sm90_q192), and returns without waiting for them
 * (unless check_offsets).
 * Thread-safe. */
int jfa_attention_forward(jfa_attention_t attention,
                          const jfa_attention_forward_args *args,
                          CUstream stream);

/* Whether the handle has the backward's kernels for arch: 1 yes, 0 no (the
 * reason is then jfa_last_error()), -1 on a NULL argument. They come from
 * the kernel_dir (attention_bwd_<suffix>_<arch>.*.cubin per head dim, mask
 * and general, and attention_bwd_{delta,schedule,dq_convert}_<arch>.cubin, as
 * scripts/build-package.sh writes them) or, for a handle made with NULL,
 * from the library (JFA_EMBED_ATTENTION_KERNELS embeds them beside the
 * forward's). */
int jfa_attention_has_backward(jfa_attention_t attention, const char *arch);

/* The backward's arguments. Zero-initialize the struct and set what the
 * call uses, with the values the forward was called with: the fields added
 * after check_offsets are the forward's options of issue 20
 * (cross-attention, grouped-query k/v heads, the sliding window, the GDPA
 * activation), with the same names, rules and "0 means off" (use_window,
 * activation NULL), so a struct that sets none of them is the gradient of
 * the plain forward. The struct grew with them: a host compiled against an
 * older attention.h must be recompiled; jfa_attention_backward_args_size()
 * is this library's sizeof. */
typedef struct {
  /* bf16, read: the upstream gradient of o (dout), the forward's q, k, v and
   * the o it wrote; dout, q and o [T, H, D], k and v [T_k, H_kv, D]. The
   * rules of jfa_attention_forward_args' q, k, v apply to each (o's too). */
  CUdeviceptr dout, q, k, v, o;
  int64_t dout_strides[3], q_strides[3], k_strides[3], v_strides[3],
      o_strides[3];
  /* f32 [H, T], contiguous: forward's log-sum-exp (-inf for a query that
   * sees no key, as the forward writes it). Under a GDPA activation the
   * backward needs none: lse is then not read nor checked, and may be 0. */
  CUdeviceptr lse;
  /* int32 [B+1]: as in the forward. */
  CUdeviceptr offsets;
  /* bf16, written: the gradients, dq [T, H, D] like q, dk and dv [T_k, H_kv,
   * D] like k and v (grouped-query attention: each the sum over the q heads
   * that read that k/v head). Rules of the forward's o; dk and dv have the
   * same token stride. A query that sees no key gets dq = 0, a key that no
   * query sees dk = dv = 0. No output may overlap an input, another output
   * or the workspace. */
  CUdeviceptr dq, dk, dv;
  int64_t dq_strides[3], dk_strides[3], dv_strides[3];
  /* Scratch device memory, 256-byte aligned, of at least
   * jfa_attention_backward_workspace_size bytes; untouched by the caller
   * until the call's work on the stream is done. */
  CUdeviceptr workspace;
  size_t workspace_bytes;
  const char *dtype;         /* must be "bf16" */
  const char *offsets_dtype; /* must be "i32" (offsets_k's too) */
  /* As in the forward (the same values the forward was called with). */
  int64_t total_tokens, num_heads, head_dim, batch, max_seqlen;
  int causal;
  float softmax_scale;
  /* Nonzero: copy offsets (and offsets_k) to the host and check them, as
   * the forward's check_offsets. */
  int check_offsets;

  /* Added for issue 20; all 0 (a zero-initialized struct): off. The
   * forward's fields of these names, with the values the forward had. */

  /* Cross-attention: the key sequences (int32 [B+1]), T_k and the bound of
   * their lengths; 0: self-attention (and then total_tokens_k and
   * max_seqlen_k must be 0). With T_k == 0 and queries, dq = 0 (a driver
   * memset) and no kernel runs; with keys but T == 0, dk = dv = 0 (likewise).
   */
  CUdeviceptr offsets_k;
  int64_t total_tokens_k, max_seqlen_k;
  /* H_kv, the heads of k, v, dk and dv; num_heads must be a multiple of it.
   * 0: num_heads. */
  int64_t num_kv_heads;
  /* Nonzero: the forward's sliding window (window_left, window_right, -1
   * unbounded; the forward's rules). Zero: none (the two are not read). */
  int use_window;
  int64_t window_left, window_right;
  /* The forward's activation: NULL or "softmax", "silu", "gelu_tanh" (the
   * forward's rules). Under GDPA, P = act(x) and dS = softmax_scale * dP *
   * act'(x) with x = softmax_scale * q.k: neither lse nor delta = rowsum(o
   * * dout) is used, so lse may be 0 and the delta kernel does not run (o
   * is still checked, as in the forward's rules). */
  const char *activation;
  /* The forward's block-sparse mask (its fields of these names). */
  CUdeviceptr block_mask_bits;
  int64_t block_mask_heads;
} jfa_attention_backward_args;

/* sizeof(jfa_attention_backward_args) as this library was compiled (see
 * jfa_attention_forward_args_size). */
size_t jfa_attention_backward_args_size(void);

/* The bytes of workspace a backward call with args' sizes and options (and
 * dk's token stride) needs: dq's f32 accumulator over the T queries, delta
 * (f32 [H, T]; under GDPA not computed, its space then stands for the
 * kernels' lse and delta, which they do not use) and the work schedule over
 * B * ceil(max_seqlen_k / 128) (sequence, key tile) pairs (max_seqlen for
 * self-attention). 0 when no kernel runs (no queries, or no keys). The
 * addresses are not looked at; the sizes, the options and the dk and dq token
 * strides are checked. */
int jfa_attention_backward_workspace_size(
    const jfa_attention_backward_args *args, size_t *bytes);

/* Runs the attention backward on stream (NULL: the legacy default stream)
 * of the current context's device: dq's f32 accumulator (in the workspace)
 * is zeroed, then four kernels run in order: the work schedule (over the key
 * sequences), delta = rowsum(o * dout) (not under a GDPA activation, which
 * does not use it), the backward kernel for the device, head dim, mask and
 * options (general: chosen as the forward chooses it; dk, dv written, dq
 * accumulated), and dq's conversion to bf16. Without keys (T_k == 0) it
 * zeroes dq, without queries (T == 0) dk and dv, with driver memsets on the
 * stream, and runs no kernel. Returns without waiting (unless
 * check_offsets); nothing else synchronizes, so the call can be captured in
 * a CUDA graph. dq's last bits may differ from run to run (atomic
 * accumulation). Thread-safe. */
int jfa_attention_backward(jfa_attention_t attention,
                           const jfa_attention_backward_args *args,
                           CUstream stream);

#ifdef __cplusplus
}
#endif

#endif /* JFA_ATTENTION_H */
