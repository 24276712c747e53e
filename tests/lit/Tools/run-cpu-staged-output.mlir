// REQUIRES: nvrtc
// --staged-output (PipelineOptions::stagedOutput): the attention output goes through the
// query's shared tile (free once the warp's last score gemm is done; each warp writes its own
// rows there) and reaches global memory as whole 16-byte row chunks. The query tile is still
// loaded by the producer's TMA. Not through the query tile where D != Dv (it has another
// shape), nor in persistent kernels (the producer loads the next tile's query into it): those
// stage in a tile of their own where shared memory has room. The CPU executor writes the
// staging tile as the GPU does, so a later read of Q would show in its results.
// RUN: metaattn-opt %s --metaattn-lower="staged-output=1" | FileCheck %s --check-prefix=LOWER
// RUN: metaattn-opt %s --metaattn-lower="staged-output=1 persistent=1" | FileCheck %s --check-prefix=PERSISTENT
// RUN: metaattn-run %s --device=cpu --resource-report --staged-output --dump-cuda=%t.cu | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=CUDA < %t.cu
// RUN: metaattn-run %s --device=cpu --staged-output --function=gqa --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s --check-prefix=GQA
// RUN: metaattn-run %s --device=cpu --staged-output --function=gqa --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s --check-prefix=GQA
// RUN: metaattn-run %s --device=cpu --staged-output --function=gqa --batch=1 --seq-q=257 --seq-kv=300 | FileCheck %s --check-prefix=GQA
// RUN: metaattn-run %s --device=cpu --staged-output --target=sm_80 --function=gqa --batch=1 --seq-q=130 --seq-kv=200 | FileCheck %s --check-prefix=GQA
// RUN: metaattn-run %s --device=cpu --staged-output --function=wide_value --batch=1 --seq-q=130 --seq-kv=200 | FileCheck %s --check-prefix=WIDE
// RUN: metaattn-run %s --device=cpu --staged-output --persistent --function=gqa --batch=3 --seq-q=400 --seq-kv=385 | FileCheck %s --check-prefix=GQA
// RUN: metaattn-run %s --device=cpu --staged-output --persistent --function=wide_value --batch=3 --seq-q=130 --seq-kv=77 | FileCheck %s --check-prefix=WIDE
// LOWER-LABEL: tile.kernel @gqa
// LOWER: tile.tma_copy %arg0[{{.*}}] to [[Q:%[0-9]+]], {{.*}} : <?x?x4x64xbf16> to memref<192x64xbf16, #tile.space<shared>>
// LOWER: tile.copy {{%[0-9]+}} to %arg3[{{.*}}] via [[Q]] : memref<192x64xbf16, #tile.space<shared>>
// LOWER-LABEL: tile.kernel @wide_value
// LOWER-NOT: via
// PERSISTENT-LABEL: tile.kernel @gqa
// PERSISTENT: tile.tma_copy %arg0[{{.*}}] to [[Q:%[0-9]+]], {{.*}} : <?x?x4x64xbf16> to memref<192x64xbf16, #tile.space<shared>>
// PERSISTENT: [[OWN:%[0-9]+]] = tile.alloc : memref<192x64xbf16, #tile.space<shared>>
// PERSISTENT-NOT: via [[Q]]
// PERSISTENT: tile.copy {{%[0-9]+}} to %arg3[{{.*}}] via [[OWN]]
// PERSISTENT-LABEL: tile.kernel @wide_value
// PERSISTENT: tile.copy {{%[0-9]+}} to %arg3[{{.*}}] via {{%[0-9]+}} : memref<128x128xbf16
// D256's kv tiles leave no room for a staging tile of its own: stored as before.
// PERSISTENT-LABEL: tile.kernel @d256
// PERSISTENT-NOT: via
// PERSISTENT: tile.copy {{%[0-9]+}} to %arg3[{{.*}}] {dims
// LOWER-LABEL: tile.kernel @d256
// LOWER: tile.copy {{%[0-9]+}} to %arg3[{{.*}}] via
// REPORT: resources gqa (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded
// CUDA: metaattn::dev::tma::loadTile
// CUDA: metaattn::dev::block::storeFragStaged<384>(o,
// CUDA: metaattn::dev::block::storeFrag<256, bf16>(o,
// GQA: PASS gqa
// WIDE: PASS wide_value
func.func @gqa(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000e-01 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %qa = arith.addi %qi, %off : index
      %m = arith.cmpi ule, %ki, %qa : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

func.func @wide_value(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x128xbf16>) -> tensor<?x?x2x128xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.constant true
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x128xbf16> -> tensor<?x?x2x128xbf16>
  return %o : tensor<?x?x2x128xbf16>
}

func.func @d256(%q: tensor<?x?x2x256xbf16>, %k: tensor<?x?x2x256xbf16>, %v: tensor<?x?x2x256xbf16>) -> tensor<?x?x2x256xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.constant true
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x2x256xbf16>, tensor<?x?x2x256xbf16>, tensor<?x?x2x256xbf16> -> tensor<?x?x2x256xbf16>
  return %o : tensor<?x?x2x256xbf16>
}
