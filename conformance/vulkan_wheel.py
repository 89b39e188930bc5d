"""llama-cpp-python built with llama.cpp's Vulkan backend, for the suite's GPU tests on Mesa's software device.

``python conformance/vulkan_wheel.py install`` (tox's ``vulkan`` environment runs it first) makes sure of, in
order, skipping what is already done:

1. Debian's Vulkan loader, Mesa's software driver (lavapipe, the device ``llvmpipe``), glslc and the SPIR-V
   headers (``apt-get install``, as the suite installs its other programs).
2. Vulkan headers new enough for the vendored ``ggml-vulkan.cpp``: bookworm's 1.3.239 lack
   ``vk::LayerSettingEXT``, so trixie's ``libvulkan-dev`` (1.4) is downloaded with ``apt-get download`` through an
   apt state of its own (the system's sources and packages are left alone) and unpacked, headers only.
3. The wheel: ``pip wheel --no-cache-dir --no-binary llama-cpp-python`` with ``-DGGML_VULKAN=ON`` and those headers
   (plus the ``-fno-dse`` every build here gets), kept under ``~/.cache/superfluid/vulkan/`` by version and flags:
   pip's own wheel cache is keyed by name and version only, so it would hand back a CPU build (or keep this one
   for a later CPU install). About 10 minutes on 2 cores the first time.
4. That wheel installed over the environment's llama-cpp-python (``--force-reinstall --no-deps``).

Then the tests run with ``GGML_VK_VISIBLE_DEVICES=0``: llama.cpp skips a Vulkan device of CPU type, as lavapipe
is, unless that names it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGES = ("mesa-vulkan-drivers", "libvulkan1", "libvulkan-dev", "glslc", "spirv-headers", "vulkan-tools")
HEADER_SUITE = "trixie"
CPU_FLAGS = "-DCMAKE_C_FLAGS=-fno-dse -DCMAKE_CXX_FLAGS=-fno-dse"
APT_ENV = {"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "superfluid" / "vulkan"


def run(*command: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, env=env, cwd=cwd)


def ensure_packages() -> None:
    missing = [p for p in PACKAGES if subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True,
                                                        text=True).stdout != "install ok installed"]
    if missing:
        run("apt-get", "update", "-qq", env=APT_ENV)
        run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing, env=APT_ENV)


def _mirror() -> str:
    """The machine's own Debian mirror (its first source that is not the security one)."""
    sources = [*Path("/etc/apt").glob("sources.list"), *Path("/etc/apt/sources.list.d").glob("*.list"),
               *Path("/etc/apt/sources.list.d").glob("*.sources")]
    for path in sources:
        for line in path.read_text(errors="replace").splitlines():
            words = line.split("#", 1)[0].split()
            if not words or words[0] not in ("deb", "URIs:"):
                continue
            for word in words[1:]:
                if word.startswith("http") and "debian" in word and "security" not in word:
                    return word
    return "http://deb.debian.org/debian"


def ensure_headers(folder: Path) -> Path:
    """Trixie's Vulkan headers unpacked under ``folder``; returns their include directory."""
    include = folder / "usr" / "include"
    if "LayerSettingEXT" in _read(include / "vulkan" / "vulkan_structs.hpp"):
        return include
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        for sub in ("lists/partial", "cache/archives/partial", "parts", "debs"):
            (state / sub).mkdir(parents=True)
        keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
        (state / "suite.list").write_text(f"deb [signed-by={keyring}] {_mirror()} {HEADER_SUITE} main\n")
        settings = {"Dir::Etc::SourceList": state / "suite.list", "Dir::Etc::SourceParts": state / "parts",
                    "Dir::State::Lists": state / "lists", "Dir::Cache": state / "cache", "APT::Sandbox::User": "root"}
        options = [part for key, value in settings.items() for part in ("-o", f"{key}={value}")]
        run("apt-get", *options, "update", "-qq", env=APT_ENV)
        run("apt-get", *options, "download", f"libvulkan-dev/{HEADER_SUITE}", env=APT_ENV, cwd=state / "debs")
        [deb] = (state / "debs").glob("libvulkan-dev_*.deb")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        run("dpkg-deb", "-x", str(deb), str(folder))
    if "LayerSettingEXT" not in _read(include / "vulkan" / "vulkan_structs.hpp"):
        raise SystemExit(f"the {HEADER_SUITE} Vulkan headers in {folder} lack LayerSettingEXT")
    return include


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def ensure_wheel(version: str, include: Path) -> Path:
    flags = f"{CPU_FLAGS} -DGGML_VULKAN=ON -DVulkan_INCLUDE_DIR={include}"
    key = hashlib.sha256(f"{version} {flags} {sys.version_info[:2]}".encode()).hexdigest()[:12]
    folder = cache_root() / "wheels" / key
    found = sorted(folder.glob(f"llama_cpp_python-{version}-*.whl"))
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CMAKE_ARGS": flags, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2)}
    run(sys.executable, "-m", "pip", "wheel", "--no-cache-dir", "--no-deps", "--no-binary", "llama-cpp-python",
        f"llama-cpp-python=={version}", "-w", str(folder), env=env)
    return sorted(folder.glob(f"llama_cpp_python-{version}-*.whl"))[0]


def install() -> None:
    version = importlib.metadata.version("llama-cpp-python").split("+")[0]
    ensure_packages()
    include = ensure_headers(cache_root() / f"headers-{HEADER_SUITE}")
    wheel = ensure_wheel(version, include)
    run(sys.executable, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", str(wheel))
    shown = subprocess.run([sys.executable, "-c", "import llama_cpp, pathlib; print(sorted(p.name for p in "
                            "(pathlib.Path(llama_cpp.__file__).parent / 'lib').glob('libggml-vulkan*')))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    if "libggml-vulkan" not in shown:
        raise SystemExit(f"{wheel} has no Vulkan backend")
    print(f"llama-cpp-python {version} with Vulkan from {wheel}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        raise SystemExit("usage: python conformance/vulkan_wheel.py install")
    install()
