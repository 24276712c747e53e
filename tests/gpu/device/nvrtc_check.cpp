//===- nvrtc_check.cpp - NVRTC compile check of the device library --------===//
///
/// \file
/// Compiles fa2_kernel.cuh (a FlashAttention-2 forward written with the
/// device library) with NVRTC for sm_90a the way the runtime will: every
/// header handed over in memory under its "metaattn/<name>.cuh" name, no
/// include path, no host headers. Also compiles each library header alone.
/// Checks the PTX for the instructions the kernel must use and prints
/// ptxas's register/spill report for the cubin. Needs no GPU.
///
///   nvrtc_check <runtime/device dir> <fa2_kernel.cuh>
/// Exit status 0 when everything compiles and the checks hold.
///
//===----------------------------------------------------------------------===//
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* kHeaders[] = {"types.cuh", "math.cuh",   "smem.cuh", "frag.cuh", "ptx.cuh", "copy.cuh",
                          "gemm.cuh",  "reduce.cuh", "scan.cuh", "kept.cuh", "tile.cuh"};

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Headers {
  std::vector<std::string> names, bodies;
  std::vector<const char*> namePtrs, bodyPtrs;
  void add(const std::string& name, std::string body) {
    names.push_back(name);
    bodies.push_back(std::move(body));
  }
  void finish() {
    for (size_t i = 0; i < names.size(); ++i) {
      namePtrs.push_back(names[i].c_str());
      bodyPtrs.push_back(bodies[i].c_str());
    }
  }
};

/// Compiles `src`; returns the log, and the PTX (virtual arch) or the ptxas
/// info (real arch) in `out`.
bool compile(const std::string& what, const std::string& src, const Headers& h,
             const std::vector<std::string>& nameExprs, bool realArch, std::string& out) {
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src.c_str(), (what + ".cu").c_str(), (int)h.names.size(),
                         h.bodyPtrs.data(), h.namePtrs.data()) != NVRTC_SUCCESS)
    return false;
  for (const auto& e : nameExprs)
    nvrtcAddNameExpression(prog, e.c_str());
  std::vector<const char*> opts = {
      realArch ? "--gpu-architecture=sm_90a" : "--gpu-architecture=compute_90a", "-std=c++17"};
  if (realArch)
    opts.push_back("--ptxas-options=-v");
  nvrtcResult r = nvrtcCompileProgram(prog, (int)opts.size(), opts.data());
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  std::string log(logSize, '\0');
  nvrtcGetProgramLog(prog, &log[0]);
  if (r != NVRTC_SUCCESS) {
    std::printf("FAIL nvrtc %s (%s):\n%s\n", what.c_str(), nvrtcGetErrorString(r), log.c_str());
    nvrtcDestroyProgram(&prog);
    return false;
  }
  if (realArch) {
    size_t n = 0;
    nvrtcGetCUBINSize(prog, &n);
    out = log;
    std::printf("  %s: cubin %zu bytes\n", what.c_str(), n);
  } else {
    size_t n = 0;
    nvrtcGetPTXSize(prog, &n);
    out.assign(n, '\0');
    nvrtcGetPTX(prog, &out[0]);
  }
  nvrtcDestroyProgram(&prog);
  return true;
}

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1))
    ++n;
  return n;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <runtime/device dir> <fa2_kernel.cuh>\n", argv[0]);
    return 2;
  }
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::printf("NVRTC %d.%d\n", major, minor);
  Headers h;
  for (const char* name : kHeaders)
    h.add(std::string("metaattn/") + name, readFile(std::string(argv[1]) + "/metaattn/" + name));
  h.add("fa2_kernel.cuh", readFile(argv[2]));
  h.finish();
  int failures = 0;

  // Each header alone (include hygiene), with a trivial kernel.
  for (const char* name : kHeaders) {
    std::string src = std::string("#include \"metaattn/") + name + "\"\n__global__ void k() {}\n";
    std::string ptx;
    bool ok = compile(std::string("header_") + name, src, h, {}, false, ptx);
    std::printf("%s nvrtc header metaattn/%s alone\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
  }

  const std::vector<std::string> kernels = {
      "fa2::forward<128, 128, false>", "fa2::forward<128, 128, true>",
      "fa2::forward<64, 64, false>", "fa2::forward<64, 64, true>"};
  const std::string src = "#include \"fa2_kernel.cuh\"\n";
  std::string ptx, info;
  bool ok = compile("fa2_ptx", src, h, kernels, false, ptx);
  if (ok) {
    // 4 instantiations: D=128: 128 mma each, D=64: 64 mma each.
    const size_t mma = count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
    const size_t ldsm = count(ptx, "ldmatrix.sync.aligned.m8n8.x4");
    const size_t ldsmT = count(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans");
    const size_t cpa = count(ptx, "cp.async.cg.shared.global");
    const size_t ex2 = count(ptx, "ex2.approx.ftz.f32");
    const size_t local = count(ptx, "ld.local") + count(ptx, "st.local");
    std::printf("  PTX: %zu mma.sync bf16, %zu ldmatrix.x4 (%zu .trans), %zu cp.async.cg, %zu "
                "ex2.approx, %zu local accesses\n",
                mma, ldsm, ldsmT, cpa, ex2, local);
    ok = mma == 2 * 128 + 2 * 64 && ldsmT > 0 && cpa > 0 && ex2 > 0 && local == 0;
  }
  std::printf("%s nvrtc fa2 kernel -> PTX (compute_90a), instruction checks\n",
              ok ? "PASS" : "FAIL");
  failures += !ok;

  ok = compile("fa2_cubin", src, h, kernels, true, info);
  if (ok) {
    std::printf("%s", info.c_str());
    ok = info.find("bytes spill") != std::string::npos &&
         count(info, " 0 bytes spill stores, 0 bytes spill loads") == kernels.size();
  }
  std::printf("%s nvrtc fa2 kernel -> CUBIN (sm_90a), no spills\n", ok ? "PASS" : "FAIL");
  failures += !ok;
  return failures ? 1 : 0;
}
