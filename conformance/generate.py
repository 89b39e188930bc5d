"""Generate, from every openapi/*.yaml, the API reference (docs/reference/<name>.md, by essentials-openapi) and
a typed Python client (clients/python/superfluid-<name>-client, by openapi-python-client).

    python conformance/generate.py reference [--write]   (tox -e apidocs)
    python conformance/generate.py client [--write]      (tox -e client)

Without --write the outputs are generated into a scratch folder and compared with the checked-in ones: any
difference fails (exit 1) and is listed, so CI fails when a document changed and its outputs did not. This
script is standalone (it runs in the generators' own tox environments, without superfluid installed).
"""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
SPEC_DIR = ROOT / "openapi"
TARGETS = {"reference": ROOT / "docs" / "reference", "client": ROOT / "clients" / "python"}


def documents() -> list[Path]:
    return sorted(SPEC_DIR.glob("*.yaml"))


def _tidy(node: Any) -> Any:
    """Folded YAML descriptions end in a newline, which breaks a Markdown table row; drop trailing space."""
    if isinstance(node, dict):
        return {k: (v.strip() if k == "description" and isinstance(v, str) else _tidy(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    return node


def reference(out: Path, scratch: Path) -> None:
    names = []
    for spec in documents():
        with spec.open(encoding="utf-8") as fh:
            tidy = _tidy(yaml.safe_load(fh))
        source = scratch / f"{spec.stem}.yaml"
        source.write_text(yaml.safe_dump(tidy, sort_keys=False, allow_unicode=True), encoding="utf-8")
        subprocess.run(["oad", "gen-docs", "-s", str(source), "-d", str(out / f"{spec.stem}.md"), "-t", "MARKDOWN"],
                       check=True, stdout=subprocess.DEVNULL)
        names.append((spec.stem, tidy.get("info", {}).get("title", spec.stem)))
    index = ["# API reference", "",
             "Generated from `openapi/*.yaml` by essentials-openapi (`tox -e apidocs -- --write`); do not edit.",
             "The server publishes the same documents at `/openapi/<name>.json` and renders them at `/docs`.", ""]
    index += [f"- [{title}]({name}.md) — `openapi/{name}.yaml`" for name, title in names]
    (out / "README.md").write_text("\n".join(index) + "\n", encoding="utf-8")


def client(out: Path, scratch: Path) -> None:
    for spec in documents():
        project = f"superfluid-{spec.stem}-client"
        config = scratch / f"{spec.stem}-config.yaml"
        config.write_text(yaml.safe_dump({"project_name_override": project,
                                          "package_name_override": project.replace("-", "_")}), encoding="utf-8")
        subprocess.run(["openapi-python-client", "generate", "--path", str(spec), "--meta", "setup",
                        "--config", str(config), "--output-path", str(out / project), "--overwrite"],
                       check=True, stdout=subprocess.DEVNULL)
        shutil.rmtree(out / project / ".ruff_cache", ignore_errors=True)


def differences(left: Path, right: Path) -> list[str]:
    """Paths (relative to the folders) that differ, or are on one side only."""
    found: list[str] = []

    def walk(cmp: filecmp.dircmp[str], prefix: str) -> None:
        found.extend(prefix + name for name in cmp.left_only + cmp.right_only + cmp.diff_files + cmp.funny_files)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    if not right.is_dir():
        return [f"{right} is missing"]
    walk(filecmp.dircmp(str(left), str(right), ignore=["__pycache__", ".ruff_cache"]), "")
    return sorted(found)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in TARGETS or argv[1:] not in ([], ["--write"], ["--check"]):
        print(__doc__, file=sys.stderr)
        return 2
    kind, write = argv[0], argv[1:] == ["--write"]
    generate = reference if kind == "reference" else client
    target = TARGETS[kind]
    with tempfile.TemporaryDirectory() as tmp:
        out, scratch = Path(tmp) / "out", Path(tmp) / "scratch"
        out.mkdir()
        scratch.mkdir()
        generate(out, scratch)
        if write:
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(out, target)
            print(f"wrote {target.relative_to(ROOT)}")
            return 0
        stale = differences(out, target)
    if stale:
        print(f"{target.relative_to(ROOT)} is stale (regenerate: tox -e {'apidocs' if kind == 'reference' else kind}"
              f" -- --write):\n  " + "\n  ".join(stale), file=sys.stderr)
        return 1
    print(f"{target.relative_to(ROOT)} matches openapi/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
