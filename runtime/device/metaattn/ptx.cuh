//===- metaattn/ptx.cuh - Thin inline-PTX wrappers --------------*- CUDA -*-===//
///
/// \file
/// One function per PTX instruction the library uses (sm_80+ instructions,
/// all available on sm_90a): cp.async, ldmatrix, mma.sync. Shapes and layouts
/// are documented at each wrapper; the typed, shape-checked API built on them
/// is in copy.cuh and gemm.cuh.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/types.cuh"

namespace metaattn {
namespace dev {
namespace ptx {

/// cp.async.cg.shared.global, 16 bytes; bytes [srcBytes, 16) are zero-filled
/// (srcBytes == 0 reads nothing and writes 16 zero bytes). Bypasses L1.
METAATTN_DEV void cpAsync16(unsigned smemAddr, const void* gmem, int srcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddr), "l"(gmem),
               "r"(srcBytes)
               : "memory");
}
/// cp.async.ca.shared.global, 4 bytes (one f32 or i32 of a strided vector); srcBytes == 0
/// reads nothing and writes zeros.
METAATTN_DEV void cpAsync4(unsigned smemAddr, const void* gmem, int srcBytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smemAddr), "l"(gmem),
               "r"(srcBytes)
               : "memory");
}
/// cp.async.commit_group: closes the group of this thread's cp.asyncs so far.
METAATTN_DEV void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/// cp.async.wait_group N: waits until at most N of this thread's groups are
/// pending. Other threads' copies are visible only after a barrier.
template <int N> METAATTN_DEV void cpAsyncWait() {
  static_assert(N >= 0 && N <= 7, "cpAsyncWait: N must be in 0..7");
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// ldmatrix.m8n8.x4.b16: lanes 8j..8j+7 give the row addresses of matrix j;
/// register j of lane l receives row l/4, columns 2*(l%4)..+1 of matrix j.
METAATTN_DEV void ldmatrixX4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
/// As ldmatrixX4 but each 8x8 matrix is transposed: register j of lane l
/// receives column l/4, rows 2*(l%4)..+1 of matrix j.
METAATTN_DEV void ldmatrixX4Trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
/// Two matrices; addresses from lanes 0..15.
METAATTN_DEV void ldmatrixX2(unsigned (&r)[2], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr));
}
METAATTN_DEV void ldmatrixX2Trans(unsigned (&r)[2], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr));
}

/// mma.sync.m16n8k16.row.col, f32 accumulate, d += a * b. Lane l = 4g + t:
///   a0: (row g,   k 2t..2t+1)   a1: (row g+8, k 2t..)   a2: (row g, k 2t+8..)
///   a3: (row g+8, k 2t+8..)     b0: (k 2t..2t+1, col g) b1: (k 2t+8.., col g)
///   d0,d1: (row g, col 2t..2t+1)  d2,d3: (row g+8, col 2t..2t+1)
template <class T> struct Mma16816;
template <> struct Mma16816<bf16> {
  METAATTN_DEV static void run(float& d0, float& d1, float& d2, float& d3, unsigned a0, unsigned a1,
                               unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
};
template <> struct Mma16816<fp16> {
  METAATTN_DEV static void run(float& d0, float& d1, float& d2, float& d3, unsigned a0, unsigned a1,
                               unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
};

} // namespace ptx
} // namespace dev
} // namespace metaattn
