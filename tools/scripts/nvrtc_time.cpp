//===- nvrtc_time.cpp - where NVRTC's time goes for one kernel -------------===//
///
/// Compiles a .cu file with NVRTC the way the runtime does (sm_90a, C++17, -default-device,
/// -ftz=true without fast math (runtime/lib/Compiler.cpp's defaults: with --use_fast_math,
/// tanhf would become one MUFU.TANH, which the runtime's kernels do not get), the device
/// library on the include path) REPEAT times, to PTX only (NVRTC's front
/// end and NVVM) and to a cubin (the same plus ptxas), and prints the medians. Built and run by
/// tools/scripts/compile_time.sh; needs no GPU.
///
///   [NVRTC_EXTRA="options"] [NVRTC_SAVE_CUBIN=F] [NVRTC_THREADS=N] nvrtc_time <file.cu>
///   <runtime/device dir> [repeat]
///
/// NVRTC_THREADS=N: each timed compile is N compiles of the file on N threads of this process at
/// once (the runtime compiles a function's kernels so), timed to the last one's end.
///
//===----------------------------------------------------------------------===//
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

double compileMs(const std::string &source, const std::string &arch, const std::string &include) {
  std::string archFlag = "--gpu-architecture=" + arch, includeFlag = "-I" + include;
  std::vector<const char *> flags = {archFlag.c_str(), "-std=c++17", "-default-device", "-ftz=true",
                                     includeFlag.c_str()};
  // NVRTC_EXTRA: more options, space-separated (`--fdevice-time-trace=F`, `-time=F.csv`).
  static std::vector<std::string> extra = [] {
    std::vector<std::string> words;
    std::istringstream in(std::getenv("NVRTC_EXTRA") ? std::getenv("NVRTC_EXTRA") : "");
    for (std::string w; in >> w;)
      words.push_back(w);
    return words;
  }();
  for (const std::string &w : extra)
    flags.push_back(w.c_str());
  auto start = std::chrono::steady_clock::now();
  nvrtcProgram program;
  nvrtcCreateProgram(&program, source.c_str(), "kernel.cu", 0, nullptr, nullptr);
  nvrtcResult result = nvrtcCompileProgram(program, static_cast<int>(flags.size()), flags.data());
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (result != NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::fprintf(stderr, "nvrtc_time: compile failed (%s):\n%s\n", nvrtcGetErrorString(result),
                 log.c_str());
    std::exit(1);
  }
  // NVRTC_SAVE_CUBIN=F: the cubin of a compile to sm_* is written to F (tools/scripts/sass.sh).
  const char *save = std::getenv("NVRTC_SAVE_CUBIN");
  if (save && arch.rfind("sm_", 0) == 0) {
    size_t size = 0;
    nvrtcGetCUBINSize(program, &size);
    std::string cubin(size, '\0');
    nvrtcGetCUBIN(program, cubin.data());
    std::ofstream(save, std::ios::binary).write(cubin.data(), static_cast<std::streamsize>(size));
  }
  nvrtcDestroyProgram(&program);
  return ms;
}

// compileMs on NVRTC_THREADS threads at once (default 1): the wall time until all have ended.
double compileAllMs(const std::string &source, const std::string &arch,
                    const std::string &include) {
  static int threads =
      std::max(1, std::getenv("NVRTC_THREADS") ? std::atoi(std::getenv("NVRTC_THREADS")) : 1);
  if (threads == 1)
    return compileMs(source, arch, include);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] { compileMs(source, arch, include); });
  for (std::thread &w : workers)
    w.join();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: nvrtc_time <file.cu> <runtime/device dir> [repeat]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "nvrtc_time: cannot read %s\n", argv[1]);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  int repeat = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  std::vector<double> ptx, cubin;
  for (int i = 0; i < repeat; ++i) {
    ptx.push_back(compileAllMs(text.str(), "compute_90a", argv[2]));
    cubin.push_back(compileAllMs(text.str(), "sm_90a", argv[2]));
  }
  double front = median(ptx), whole = median(cubin);
  std::printf("to PTX %6.0f ms, to cubin %6.0f ms (ptxas about %.0f ms)\n", front, whole,
              whole - front);
  return 0;
}
