# lit configuration for metaattn's FileCheck tests.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "metaattn"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.metaattn_obj_root
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

llvm_config.use_default_substitutions()
tool_dirs = [config.metaattn_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["metaattn-opt", "metaattn-translate", "metaattn-run", "metaattn-demo", "metaattn-variant", "FileCheck", "not",
     "count"],
    tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# NVRTC (compiling CUDA without a GPU) where the CUDA toolkit is installed.
if any(os.path.exists(os.path.join(d, "libnvrtc.so")) for d in
       ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib")):
    config.available_features.add("nvrtc")

# GPU tests run only where a CUDA device is present.
if shutil.which("nvidia-smi") and os.system("nvidia-smi -L > /dev/null 2>&1") == 0:
    config.available_features.add("cuda")
