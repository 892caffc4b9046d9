"""Paper 001 (Li & Li), Figure 11: retrieval precision and recall against eps on natural
images, the paper's CIFAR replaced by gray patches of scikit-learn's two bundled photographs
(:func:`exactdp.plot.paper001_data.patches`; CIFAR cannot be downloaded here), with the
methods of the paper's Figure 11 (noisy projections and raw data, no sign methods): the exact
DP-OPORP and Raw-data mechanisms with geometric and discrete Gaussian noise, and the paper's
float Gaussian calibration as a labelled reference (:mod:`exactdp.plot.paper001_experiments`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.files import OutputPath

__all__ = ["FILES", "METRICS", "figure", "write"]

FILES = ("proj_fig11_patches.png", "proj_fig11_patches.md", "proj_fig11_patches.json")
METRICS = ("P@10", "P@50", "R@100")
DATA = ("8 x 8 gray patches of scikit-learn's bundled photographs china.jpg and flower.jpg "
        "(1,797 seeded patches, pixels 0..16), standing in for CIFAR (not downloadable here)")


def figure(res: Any, methods: Sequence[str] | None = None, head: str | None = None) -> Any:
    """One row per metric, one column per k: exact mechanisms solid, float references
    dashed, raw pixels without noise dotted (only ``methods`` if given; ``head``: the title's
    first lines instead of Figure 11's)."""
    from exactdp.plot.draw import new_figure
    from exactdp.plot.paper001_experiments import _TITLES, _reference, require_matplotlib_colours

    fig, axes = new_figure(max(11, 6 * len(res.ks)), 4.3 * len(METRICS), len(METRICS), len(res.ks))
    grid = [[axes[i][j] if len(res.ks) > 1 else axes[i] for j in range(len(res.ks))]
            for i in range(len(METRICS))]
    names = [n for n in dict.fromkeys(r["method"] for r in res.rows)
             if methods is None or n in methods]
    colours = require_matplotlib_colours(len(names))
    for i, metric in enumerate(METRICS):
        raw = _reference(res.refs, "Raw-data", None, metric)
        for j, k in enumerate(res.ks):
            ax = grid[i][j]
            for colour, name in zip(colours, names, strict=True):
                pts = [(float(Fraction(r["eps"])), r[metric]) for r in res.rows
                       if r["method"] == name and r["k"] in (k, None)]
                ax.plot(*zip(*pts), "--" if name.startswith("float") else "-", marker="o",
                        ms=3, label=name, color=colour)
            if raw is not None:
                ax.axhline(raw, color="black", linewidth=1.2, linestyle=":",
                           label=f"no privacy: raw pixels ({raw:.3f})")
            ax.set_xscale("log")
            ax.set_xlabel("eps (pure eps-DP per vector; G rows: (eps, 1e-6))")
            ax.set_ylabel(_TITLES[metric][1])
            ax.set_title(f"k = {k}", fontsize=9)
            ax.grid(True, alpha=0.3)
    grid[0][0].legend(fontsize=7)
    fig.suptitle((head or "Paper 001 Fig. 11 (the paper: CIFAR): retrieval of the true top-50 "
                  "cosine neighbours on natural-image patches\n"
                  + DATA.replace(" (1,797", "\n(1,797")) + "\n"
                 f"{res.reps} repetition(s) per point (the paper: 10); solid: exact "
                 "mechanisms; dashed: float references, not exact"
                 + ("" if head else ";\ntied cosines (flat patches) are broken at random, so "
                    "raw pixels without noise stay below 1"), fontsize=9)
    return fig


def write(outputs: Mapping[str, OutputPath], eps: list[Fraction], ks: list[int], reps: int,
          seed: int, command: str, progress: Callable[[str], None], workers: int = 1
          ) -> list[str]:
    from exactdp.plot import paper001_experiments as exp
    from exactdp.plot.draw import figure_bytes

    progress(f"paper 001 Fig. 11: retrieval on image patches, eps "
             f"{','.join(map(str, eps))}, k {ks}, {reps} repetition(s)")
    res = exp.experiments(eps, ks, (1,), reps, seed, log=progress, dataset="patches",
                          dense_only=True, workers=workers)
    seconds = res.cpu_seconds
    md = [(f"## Li & Li Figure 11 on image patches: retrieval against eps\n\nData: {DATA}.\n\n"
          f"Command: `{command}` ({seconds:.0f} s CPU; {reps} repetition(s), seed {seed})\n")]
    for metric in METRICS:
        md.append(f"### {metric}\n\n" + exp.markdown(res.rows, res.refs, metric, eps))
    outputs[FILES[1]].write("\n".join(md))
    outputs[FILES[2]].write(json.dumps({"command": command, "data": DATA, "seconds": seconds,
                                        "rows": res.rows, "no_privacy": res.refs},
                                       indent=1) + "\n")
    outputs[FILES[0]].write_bytes(figure_bytes(figure(res), "png"))
    return [(f"{', '.join(FILES)}: Figure 11, precision@10/@50 and recall@100 on image "
            f"patches (CIFAR's stand-in; {seconds:.0f} s CPU)")]
