// The chunked kernels with several key tiles (Dk = 136, padded to 192: three tiles of the
// states kernel's state and of the output kernel's key loop) and several value tiles
// (Dv = 72 and 200), for every gate kind, with an initial and a final state, at lengths that
// end inside a chunk. The CPU tile executor runs the lowered kernels against the
// token-by-token oracle.
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=70 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=129 --function=gla_vector | FileCheck %s --check-prefix=GLA
// RUN: metaattn-opt %s --convert-attn-to-tile="compact-vector-output=false precompute-gates=false" | FileCheck %s --check-prefix=LOWER
// Vector gates at Dk = 200 on sm_80 (99 KB per block): the model halves the chunk until the output
// kernel's f32 gates fit (it asked for 114688 bytes before).
// RUN: metaattn-variant gla --dim=200 --value-dim=136 --heads=2 --causal > %t.gla200.mlir
// RUN: metaattn-run %t.gla200.mlir --device=cpu --target=sm_80 --batch=1 --seq-q=65 | FileCheck %s --check-prefix=SM80
// SM80: PASS attention
// The GLA output kernel without the compact form (a pair of sub-chunk operand tiles per
// sub-chunk, two stages) against the oracle; the compact one's structure (the default: one
// pair, reused for the three off-diagonal gemms one after another, and one stage).
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=129 --function=gla_vector --compact-vector-output=false | FileCheck %s --check-prefix=GLA
// RUN: metaattn-opt %s --convert-attn-to-tile="precompute-gates=false" | FileCheck %s --check-prefix=COMPACT
// Precomputed gates (the default): a gates kernel first (gate_mod, mask, scan, out to a
// [B, S, H, padded Dk] f32 temporary), then the states and output kernels reading it without
// scanning again; without them each of those kernels transforms and scans the raw gates.
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=129 --function=gla_vector --precompute-gates=false | FileCheck %s --check-prefix=GLA
// RUN: metaattn-opt %s --convert-attn-to-tile | FileCheck %s --check-prefix=PRE
// PRE-LABEL: tile.kernel @gla_vector_step0(
// PRE-SAME: {tile.name = "gate"}, %[[CUM:.*]]: !tile.tensor<?x?x1x192xf32> {tile.name = "cum_gates"})
// PRE-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "arg:3", "temp:0"]
// The raw gates arrive by async copies (every chunk of a thread in flight at once).
// PRE: tile.copy %arg3[{{.*}}] to %{{.*}} {async,
// PRE-NEXT: tile.async_commit
// PRE-NEXT: tile.async_wait 0
// PRE-NEXT: tile.barrier
// PRE: math.log
// PRE: tile.scan
// PRE: tile.copy %{{.*}} to %[[CUM]][
// PRE-LABEL: tile.kernel @gla_vector_step1(
// PRE-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "arg:3", "temp:0", "temp:1"]
// PRE-NOT: tile.scan
// PRE-NOT: math.log
// PRE-LABEL: tile.kernel @gla_vector_step2(
// PRE-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "arg:3", "temp:0", "temp:1", "result:0"]
// PRE-NOT: tile.scan
// PRE-NOT: math.log
// PRE: tile.return
// COMPACT-LABEL: tile.kernel @gla_vector_step1
// COMPACT-COUNT-5: tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// COMPACT-NOT: tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// COMPACT: tile.alloc : memref<64x16xf32, #tile.space<shared>>
// COMPACT: tile.pipelined {{.*}} stages 1
// The diagonal sub-chunks: only the 4 x 136 pairs on or below their diagonal, each a loop
// over the key tile.
// COMPACT: tile.parallel ({{.*}}) in [544]
// COMPACT: scf.for
// COMPACT: math.exp
// COMPACT: tile.gemm %[[QT:[^,]+]], %[[KT:[^,]+]], %{{.*}} {transpose_b}
// COMPACT-NEXT: tile.barrier
// COMPACT: tile.parallel
// COMPACT: tile.barrier
// COMPACT-NEXT: tile.gemm %[[QT]], %[[KT]], %{{.*}} {transpose_b}
// COMPACT-NEXT: tile.barrier
// COMPACT: tile.parallel
// COMPACT: tile.barrier
// COMPACT-NEXT: tile.gemm %[[QT]], %[[KT]], %{{.*}} {transpose_b}
// COMPACT-NOT: tile.gemm %[[QT]]

// CHECK-DAG: PASS linear_states
// CHECK-DAG: PASS retnet
// CHECK-DAG: PASS retnet_final
// CHECK-DAG: PASS qmod_per_dim
// CHECK-DAG: PASS qmod_input_per_dim
// CHECK-DAG: PASS gated
// CHECK-DAG: PASS gla_vector
// GLA: PASS gla_vector

// Three key tiles in both kernels: 3 x (Dv / 64 rounded up) state tiles in the states
// kernel's grid, and a three-step key loop in the output kernel.
// LOWER-LABEL: tile.kernel @qmod_per_dim_step1
// LOWER: tile.pipelined
// LOWER: tile.parallel
// LOWER: arith.sitofp
// LOWER: tile.gemm
// LOWER-LABEL: tile.kernel @qmod_input_per_dim_step1
// LOWER: tile.pipelined
// LOWER: tile.parallel
// LOWER: tile.read
// LOWER: tile.gemm
// LOWER-LABEL: tile.kernel @retnet_final_step0
// LOWER: tile.read
// LOWER: tile.scan
// LOWER: tile.pipelined
// LOWER-NOT: tile.scan
// LOWER: arith.minsi
// LOWER-LABEL: tile.kernel @gated_step0
// LOWER-SAME: grid = array<i64: -1, 0, 12, -1, 0, 2, 0, 0, 1>
// LOWER: tile.gemm {{.*}} {transpose_a}
// LOWER-LABEL: tile.kernel @gated_step1
// LOWER: %[[C3:.*]] = arith.constant 3 : index
// LOWER: tile.pipelined %{{.*}} = %{{.*}} to %[[C3]]
// q_mod (q · 1/√Dk) is a factor per row: no pass over Q in the key loop, the factor scales
// the output rows and the scores after it.
// LOWER-NOT: tile.parallel
// LOWER: tile.gemm
// LOWER-NEXT: tile.gemm
// LOWER-NEXT: }
// LOWER: tile.parallel (%{{.*}}, %{{.*}}) in [64, 128]
// LOWER: arith.constant 0.0857492908 : f32
// LOWER: tile.parallel (%{{.*}}, %{{.*}}) in [64, 64]
// LOWER: arith.constant 0.0857492908 : f32
// Vector gates (GLA), not compact: per key tile, one pass builds Q ⊙ exp(G) and, for the
// sub-chunks 1-3 of 16 rows, Q̃_s (the rows of s against G at s's first row) and K̃_s (the
// keys before s against the same reference); the diagonal sub-chunks are element-wise (a loop
// over the tile's key dims for each of the 4 x 136 pairs on or below their diagonal), the rest
// three gemms into the scores.
// LOWER-LABEL: tile.kernel @gla_vector_step1
// LOWER: tile.pipelined
// LOWER: tile.parallel (%{{.*}}, %{{.*}}) in [64, 64]
// LOWER-COUNT-5: math.exp
// LOWER: tile.barrier
// LOWER-NEXT: tile.parallel (%{{.*}}) in [544]
// LOWER: scf.for
// LOWER: tile.gemm %[[QG:.*]], %[[ST:.*]], %[[OUT:.*]] : memref<64x64xbf16
// LOWER-NEXT: tile.gemm %[[Q1:.*]], %[[K1:.*]], %[[S:.*]] {transpose_b}
// LOWER-NEXT: tile.gemm %[[Q2:.*]], %[[K2:.*]], %[[S]] {transpose_b}
// LOWER-NEXT: tile.gemm %[[Q3:.*]], %[[K3:.*]], %[[S]] {transpose_b}

func.func @linear_states(%q: tensor<?x?x1x136xbf16>, %k: tensor<?x?x1x136xbf16>,
                         %v: tensor<?x?x1x72xbf16>, %h0: tensor<?x1x136x72xf32>)
    -> (tensor<?x?x1x72xbf16>, tensor<?x1x136x72xf32>) {
  %o, %ht = attn.recurrent %q, %k, %v initial_state(%h0 : tensor<?x1x136x72xf32>) q_mod {
  ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
    %c = arith.constant 0.0857492925 : f32
    %y = arith.mulf %x, %c : f32
    attn.yield %y : f32
  } {gate_kind = #attn<gate none>}
    : tensor<?x?x1x136xbf16>, tensor<?x?x1x136xbf16>, tensor<?x?x1x72xbf16>
      -> tensor<?x?x1x72xbf16>, tensor<?x1x136x72xf32>
  return %o, %ht : tensor<?x?x1x72xbf16>, tensor<?x1x136x72xf32>
}

func.func @retnet(%q: tensor<?x?x2x136xbf16>, %k: tensor<?x?x2x136xbf16>,
                  %v: tensor<?x?x2x200xbf16>, %g: tensor<2xf32>) -> tensor<?x?x2x200xbf16> {
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<2xf32>) q_mod {
  ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
    %c = arith.constant 0.0857492925 : f32
    %y = arith.mulf %x, %c : f32
    attn.yield %y : f32
  } {gate_kind = #attn<gate head>}
    : tensor<?x?x2x136xbf16>, tensor<?x?x2x136xbf16>, tensor<?x?x2x200xbf16>
      -> tensor<?x?x2x200xbf16>
  return %o : tensor<?x?x2x200xbf16>
}

// q_mod depending on the key dim does not commute with the gemms: it stays a pass over each
// key tile of Q.
func.func @qmod_per_dim(%q: tensor<?x?x1x136xbf16>, %k: tensor<?x?x1x136xbf16>,
                        %v: tensor<?x?x1x72xbf16>) -> tensor<?x?x1x72xbf16> {
  %o = attn.recurrent %q, %k, %v q_mod {
  ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %c = arith.constant 0.001 : f32
    %w = arith.mulf %df, %c : f32
    %y = arith.mulf %x, %w : f32
    attn.yield %y : f32
  } {gate_kind = #attn<gate none>}
    : tensor<?x?x1x136xbf16>, tensor<?x?x1x136xbf16>, tensor<?x?x1x72xbf16> -> tensor<?x?x1x72xbf16>
  return %o : tensor<?x?x1x72xbf16>
}

// The same through an input indexed by the key dim (x · w[h, d]): still a pass.
func.func @qmod_input_per_dim(%q: tensor<?x?x1x136xbf16>, %k: tensor<?x?x1x136xbf16>,
                              %v: tensor<?x?x1x72xbf16>, %w: tensor<1x136xf32>)
    -> tensor<?x?x1x72xbf16> {
  %o = attn.recurrent %q, %k, %v inputs(%w : tensor<1x136xf32>) q_mod {
  ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index, %wv: f32):
    %y = arith.mulf %x, %wv : f32
    attn.yield %y : f32
  } {gate_kind = #attn<gate none>, input_dims = ["h,d"]}
    : tensor<?x?x1x136xbf16>, tensor<?x?x1x136xbf16>, tensor<?x?x1x72xbf16> -> tensor<?x?x1x72xbf16>
  return %o : tensor<?x?x1x72xbf16>
}

// A constant gate per head is scanned once before the chunk loop; the final state of a
// partial last chunk then takes its decay from the chunk's last row in the sequence.
func.func @retnet_final(%q: tensor<?x?x2x136xbf16>, %k: tensor<?x?x2x136xbf16>,
                        %v: tensor<?x?x2x72xbf16>, %g: tensor<2xf32>, %h0: tensor<?x2x136x72xf32>)
    -> (tensor<?x?x2x72xbf16>, tensor<?x2x136x72xf32>) {
  %o, %ht = attn.recurrent %q, %k, %v gate(%g : tensor<2xf32>)
      initial_state(%h0 : tensor<?x2x136x72xf32>) {gate_kind = #attn<gate head>}
    : tensor<?x?x2x136xbf16>, tensor<?x?x2x136xbf16>, tensor<?x?x2x72xbf16>
      -> tensor<?x?x2x72xbf16>, tensor<?x2x136x72xf32>
  return %o, %ht : tensor<?x?x2x72xbf16>, tensor<?x2x136x72xf32>
}

func.func @gated(%q: tensor<?x?x2x136xbf16>, %k: tensor<?x?x2x136xbf16>,
                 %v: tensor<?x?x2x200xbf16>, %g: tensor<?x?x2xf32>) -> tensor<?x?x2x200xbf16> {
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x2xf32>) q_mod {
  ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
    %c = arith.constant 0.0857492925 : f32
    %y = arith.mulf %x, %c : f32
    attn.yield %y : f32
  } {gate_kind = #attn<gate token>}
    : tensor<?x?x2x136xbf16>, tensor<?x?x2x136xbf16>, tensor<?x?x2x200xbf16>
      -> tensor<?x?x2x200xbf16>
  return %o : tensor<?x?x2x200xbf16>
}

func.func @gla_vector(%q: tensor<?x?x1x136xbf16>, %k: tensor<?x?x1x136xbf16>,
                      %v: tensor<?x?x1x72xbf16>, %g: tensor<?x?x1x136xf32>)
    -> tensor<?x?x1x72xbf16> {
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x1x136xf32>) q_mod {
  ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
    %c = arith.constant 0.0857492925 : f32
    %y = arith.mulf %x, %c : f32
    attn.yield %y : f32
  } gate_mod {
  ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
    %c = arith.constant 6.250000e-02 : f32
    %s = arith.negf %x : f32
    %e = math.exp %s : f32
    %one = arith.constant 1.0 : f32
    %p = arith.addf %one, %e : f32
    %l = math.log %p : f32
    %n = arith.negf %l : f32
    %y = arith.mulf %n, %c : f32
    attn.yield %y : f32
  } {gate_kind = #attn<gate vector>}
    : tensor<?x?x1x136xbf16>, tensor<?x?x1x136xbf16>, tensor<?x?x1x72xbf16>
      -> tensor<?x?x1x72xbf16>
  return %o : tensor<?x?x1x72xbf16>
}
