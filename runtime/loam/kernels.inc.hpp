// Every kernel of the backend seam, once, by the template arguments that come before its operands:
//   PLAIN(k)  none                      backend.k(operands...)
//   OF(k)     one: the result's axes (a cast's element type)
//   OF2(k)    two: the result's axes and an intermediate's (or a second result's), or a generated kernel's object
//   OWN(k)    a signature of its own (operands that are not tensors, overloads), forwarded by hand
// Cpu defines each; OpaqueBackend forwards each (the PLAIN, OF and OF2 ones from this list); the
// generator calls no kernel this list lacks (src/lower reads it too).
#define LOAM_BACKEND_KERNELS(PLAIN, OF, OF2, OWN)                                                          \
  /* boundary and regrouping */                                                                           \
  OWN(upload) OWN(download) OF(cast) PLAIN(identity) OF(reshape) OF(lift) OF(relabel) OWN(read_condition) \
  /* generated kernels */                                                                                 \
  OF2(loom)                                                                                               \
  /* products */                                                                                          \
  PLAIN(matmul) OF(matmul_broadcast) PLAIN(matmul_bias) OWN(gemm) OF(einsum)                              \
  /* convolution and windows */                                                                           \
  OF(conv) OF(max_pool) OF2(conv_max_pool) OF2(conv_average_pool) OF(max_pool_indices) OF(average_pool)   \
  OF(global_average_pool) OF(global_max_pool) OF(conv_transpose)                                         \
  /* movement */                                                                                          \
  OF(transpose) OF(slice) OF(split_part) OWN(concat) OF(gather) OF(expand) OF(tile) OF(pad) OWN(range)    \
  OF(gather_elements) OF(gather_nd) PLAIN(scatter_nd) PLAIN(scatter_elements) PLAIN(trilu)                \
  OF(depth_to_space) OF(space_to_depth) OF(one_hot)                                                       \
  PLAIN(rotary_embedding) PLAIN(rotary_embedding_at)                                                      \
  OWN(constant_of_shape) OF2(extents_tensor)                                                              \
  /* resampling */                                                                                        \
  OF(resize)                                                                                              \
  /* recurrence: Y and the last states, each result's axes given */                                     \
  OF2(rnn) OF2(gru) OF2(lstm)                                                                             \
  /* attention: a cache, then Y (and the scores) */                                                       \
  OF(attention_cache) OF(attention) OF2(attention_scores)                                                 \
  /* reductions and normalisations */                                                                     \
  PLAIN(softmax) PLAIN(log_softmax) PLAIN(softmax_flattened) PLAIN(log_softmax_flattened) OF(reduce_sum)  \
  OF(reduce_mean) OF(reduce_max) OF(reduce_min) OF(reduce_prod) OF(reduce_l1) OF(reduce_l2)               \
  OF(reduce_log_sum) OF(reduce_log_sum_exp) OF(reduce_sum_square) OF(argmax) OF(argmin) OF2(top_k)       \
  PLAIN(hardmax) PLAIN(hardmax_flattened) PLAIN(cumsum) PLAIN(batch_normalization)                        \
  PLAIN(instance_normalization) PLAIN(group_normalization) PLAIN(lrn) PLAIN(mean_variance_normalization)  \
  OF(layer_normalization_statistic) OWN(layer_normalization) PLAIN(rms_normalization)

// The kernels whose result is always storage of their own, written in full and never an operand's
// (nor a view of one): the memory plan places such a call's one result in the arena
// (src/lower/memory_plan.cpp reads this list). A kernel not listed may return an operand as it is
// (a reshape, a cast to the same type, a reduction over no axes), so the plan holds its operands'
// blocks for as long as its result lives.
#define LOAM_FRESH_RESULT_KERNELS(K)                                                                         \
  K(loom) K(matmul) K(matmul_broadcast) K(matmul_bias) K(gemm) K(conv) K(conv_max_pool) K(conv_average_pool) \
  K(max_pool) K(average_pool) K(global_average_pool) K(global_max_pool) K(conv_transpose) K(transpose)       \
  K(slice) K(split_part) K(concat) K(gather) K(expand) K(tile) K(pad) K(resize) K(softmax) K(log_softmax)    \
  K(batch_normalization) K(instance_normalization) K(group_normalization) K(layer_normalization)       \
  K(rms_normalization) K(rotary_embedding) K(rotary_embedding_at) K(attention_cache) K(attention)
