// RUN: metaattn-opt %s --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=77 --seq-kv=130 | FileCheck %s --check-prefix=RAN

// 1 / (1 + exp(-x)) in a score function is printed as metaattn::dev::sigmoid (one tanh.approx
// instead of ex2 and a reciprocal); 1 / (2 + exp(-x)) is not the logistic function and keeps
// its exp and division.
// The negation, exp and sum it reads through are not printed (dead lines NVRTC warns about).
// CHECK-LABEL: void __launch_bounds__({{.*}}) logistic(
// CHECK-NOT: metaattn::dev::exp(
// CHECK-NOT: = -v
// CHECK: metaattn::dev::sigmoid(
// CHECK-NOT: metaattn::dev::exp(
// CHECK-LABEL: void __launch_bounds__({{.*}}) not_logistic(
// CHECK-NOT: metaattn::dev::sigmoid(
// CHECK: metaattn::dev::exp(
// CHECK: = v{{[0-9]+}} / v{{[0-9]+}};
// RAN: PASS logistic
// RAN: PASS not_logistic
func.func @logistic(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000e-01 : f32
      %x = arith.mulf %s, %c : f32
      %n = arith.negf %x : f32
      %e = math.exp %n : f32
      %one = arith.constant 1.000000e+00 : f32
      %d = arith.addf %e, %one : f32
      %r = arith.divf %one, %d : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.000000e+00 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}

func.func @not_logistic(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000e-01 : f32
      %x = arith.mulf %s, %c : f32
      %n = arith.negf %x : f32
      %e = math.exp %n : f32
      %one = arith.constant 1.000000e+00 : f32
      %two = arith.constant 2.000000e+00 : f32
      %d = arith.addf %e, %two : f32
      %r = arith.divf %one, %d : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.000000e+00 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}
