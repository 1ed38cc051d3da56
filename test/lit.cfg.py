# lit configuration for the JFA test suite.
import os
import shutil

import lit.formats

config.name = "JFA"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.jfa_obj_root, "test")
# Kernel sources are tested from test/kernels (they RUN jfac on kernels/).
config.excludes = ["gpu", "runtime", "Inputs", "CMakeLists.txt", "lit.cfg.py"]

path = os.pathsep.join([config.jfa_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
config.substitutions.append(("%kernels", os.path.join(config.jfa_src_root, "kernels")))
config.substitutions.append(("%jfa_src", config.jfa_src_root))
config.substitutions.append(("%jfa_obj", config.jfa_obj_root))

# A Python with numpy runs the interpreter's kernel checks (setup.sh installs
# python3-numpy for the system Python).
import subprocess
python = None
for candidate in ["/usr/bin/python3", shutil.which("python3")]:
    if candidate and os.path.exists(candidate) and subprocess.run(
            [candidate, "-c", "import numpy"], capture_output=True).returncode == 0:
        python = candidate
        break
if python:
    config.available_features.add("numpy")
config.substitutions.append(("%python", python or shutil.which("python3") or "python3"))

ptxas = os.path.join(config.cuda_home, "bin", "ptxas")
if not os.path.exists(ptxas):
    ptxas = shutil.which("ptxas") or ""
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
if os.environ.get("CUDA_HOME"):
    config.environment["CUDA_HOME"] = os.environ["CUDA_HOME"]
