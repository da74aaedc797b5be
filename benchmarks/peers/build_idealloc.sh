#!/usr/bin/env bash
# Builds idealloc (https://github.com/cappadokes/idealloc, Lamprakos et al., MIT) from its public
# source, outside the package, for benchmarks/real_traces.py.
#
#   bash benchmarks/peers/build_idealloc.sh IDEALLOC_SRC
#
# or with IDEALLOC_SRC in the environment: a checkout of cappadokes/idealloc
# (`git clone https://github.com/cappadokes/idealloc`). Only its `coreba` crate (the
# library behind the `idealloc` binary) is built, with a small command line of ours,
# idealloc_offsets TRACE.csv OUT.csv MAX_LIVES ex|in, that runs the same
# `coreba::algo::idealloc` and writes every buffer's offset (idealloc's own binary prints
# the makespan only).
#
# crates.io is not needed: the crate's dependencies (clap, indexmap, itertools, rand, rayon,
# thiserror) come from Debian's packaged crates in /usr/share/cargo/registry:
#
#   apt-get install librust-clap-dev librust-indexmap-dev librust-rayon-dev \
#       librust-rand-dev librust-itertools-dev librust-thiserror-dev
#
# Debian 12 packages older versions than idealloc's Cargo.toml asks for (indexmap 1.9 for
# 2.7, itertools 0.10 for 0.13, clap 4.0 for 4.5); coreba builds with them unchanged, so the
# manifest written here asks for those. The binary lands in .peers/bin/idealloc_offsets
# (git-ignored; PEERS_DIR overrides the folder); the source folder is never modified.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
idealloc_src="${1:-${IDEALLOC_SRC:-}}"
if [[ -z "$idealloc_src" || ! -f "$idealloc_src/coreba/src/lib.rs" ]]; then
    echo "build_idealloc.sh: give idealloc's source folder (argument or IDEALLOC_SRC)" >&2
    exit 2
fi
registry=/usr/share/cargo/registry
for crate in clap indexmap itertools rand rayon thiserror; do
    if ! compgen -G "$registry/$crate-[0-9]*" >/dev/null; then
        echo "build_idealloc.sh: Debian's crate $crate is not in $registry" \
            "(apt-get install librust-$crate-dev)" >&2
        exit 2
    fi
done
peers="${PEERS_DIR:-$here/.peers}"
build="$peers/build/idealloc"
rm -rf "$build"
mkdir -p "$build" "$peers/bin"
cp -r "$idealloc_src/coreba/src" "$build/src"
rm -f "$build/src/bin/"*.rs

cat >"$build/Cargo.toml" <<'TOML'
[package]
name = "coreba"
edition = "2021"
version = "0.62.0"
publish = false

[dependencies]
clap = { version = "4", features = ["derive"] }
indexmap = "1"
itertools = "0.10"
rand = "0.8"
rayon = "1"
thiserror = "1"

[[bin]]
name = "idealloc_offsets"
path = "src/bin/idealloc_offsets.rs"

[profile.release]
lto = true
codegen-units = 1
TOML

mkdir -p "$build/.cargo"
cat >"$build/.cargo/config.toml" <<TOML
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "$registry"

[net]
offline = true
TOML

cat >"$build/src/bin/idealloc_offsets.rs" <<'RUST'
// idealloc_offsets TRACE.csv OUT.csv MAX_LIVES ENDS: coreba::algo::idealloc on a MiniMalloc
// CSV (id,lower,upper,size; numeric ids), read as idealloc's own binary reads it with
// `ex-csv` (ENDS = ex: the buffer is not live at either end, as [lower, upper) in steps) or
// `in-csv` (ENDS = in: live at both ends, a longer lifetime), and every buffer's offset
// written to OUT.csv as id,offset.
use coreba::*;
use std::io::Write;
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    assert!(args.len() == 5, "usage: idealloc_offsets TRACE.csv OUT.csv MAX_LIVES ex|in");
    let max_lives: u32 = args[3].parse().expect("MAX_LIVES: a whole number");
    let path = PathBuf::from(&args[1]);
    let set = match args[4].as_str() {
        "ex" => read_from_path::<MinimalloCSVParser, &[ByteSteps; 4]>(path, 1),
        "in" => read_from_path::<IREECSVParser, Job>(path, 2),
        _ => panic!("ENDS: ex or in"),
    }
    .expect("the trace could not be read");
    let (placed, _) = coreba::algo::idealloc(set, 1.0, 0, max_lives);
    let mut out = std::fs::File::create(&args[2]).expect("OUT.csv could not be written");
    writeln!(out, "id,offset").unwrap();
    for (id, job) in placed.iter() {
        writeln!(out, "{},{}", id, job.offset.get()).unwrap();
    }
}
RUST

(cd "$build" && cargo build --release --offline --quiet)
cp "$build/target/release/idealloc_offsets" "$peers/bin/idealloc_offsets"
echo "built $peers/bin/idealloc_offsets (from $idealloc_src)"
