#!/usr/bin/env bash
# Builds Google's MiniMalloc command line (https://github.com/google/minimalloc, Apache-2.0)
# from its public source, outside the package, for benchmarks/real_traces.py.
#
#   bash benchmarks/peers/build_minimalloc.sh MINIMALLOC_SRC [ABSEIL_SRC]
#
# or with MINIMALLOC_SRC and ABSEIL_SRC in the environment. MINIMALLOC_SRC is a checkout of
# google/minimalloc; ABSEIL_SRC one of abseil/abseil-cpp (default: MINIMALLOC_SRC/external/
# abseil-cpp, which `git clone --recursive https://github.com/google/minimalloc` fills). With
# internet:
#
#   git clone --recursive https://github.com/google/minimalloc ../minimalloc
#   bash benchmarks/peers/build_minimalloc.sh ../minimalloc
#
# The binary lands in .peers/bin/minimalloc (git-ignored; PEERS_DIR overrides the folder).
# MiniMalloc's own CMakeLists.txt also adds googletest and its tests; this script builds only
# the command line with a CMakeLists of its own in the build folder (MiniMalloc's sources and
# abseil's targets flags, statusor and log), so the source folders are never modified.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
minimalloc_src="${1:-${MINIMALLOC_SRC:-}}"
if [[ -z "$minimalloc_src" ]]; then
    echo "build_minimalloc.sh: give MiniMalloc's source folder (argument or MINIMALLOC_SRC)" >&2
    exit 2
fi
minimalloc_src="$(cd "$minimalloc_src" && pwd)"
abseil_src="${2:-${ABSEIL_SRC:-$minimalloc_src/external/abseil-cpp}}"
for needed in "$minimalloc_src/src/main.cc" "$abseil_src/CMakeLists.txt"; do
    if [[ ! -f "$needed" ]]; then
        echo "build_minimalloc.sh: $needed not found (an empty submodule? give ABSEIL_SRC)" >&2
        exit 2
    fi
done
abseil_src="$(cd "$abseil_src" && pwd)"
peers="${PEERS_DIR:-$here/.peers}"
build="$peers/build/minimalloc"
mkdir -p "$build/project" "$peers/bin"

cat >"$build/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(MiniMallocPeer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(ABSL_PROPAGATE_CXX_STD ON)
set(ABSL_BUILD_TESTING OFF)
add_subdirectory("$abseil_src" abseil EXCLUDE_FROM_ALL)
set(MM "$minimalloc_src/src")
add_executable(minimalloc
  \${MM}/main.cc \${MM}/converter.cc \${MM}/minimalloc.cc \${MM}/solver.cc
  \${MM}/sweeper.cc \${MM}/validator.cc)
target_include_directories(minimalloc PRIVATE \${MM})
target_link_libraries(minimalloc PRIVATE
  absl::flags absl::flags_parse absl::statusor absl::log absl::log_initialize)
CMAKE

jobs="${JOBS:-$(nproc)}"
cmake -S "$build/project" -B "$build/out" -DCMAKE_BUILD_TYPE=Release >"$build/cmake.log"
cmake --build "$build/out" --target minimalloc -j "$jobs" >"$build/build.log"
cp "$build/out/minimalloc" "$peers/bin/minimalloc"
echo "built $peers/bin/minimalloc (from $minimalloc_src, abseil $abseil_src)"
