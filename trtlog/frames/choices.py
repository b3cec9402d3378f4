"""The tactic each tuned layer ends up with: a reading of ``tactics_frame`` (pandas only).

Part of the frames package, kept apart from :mod:`trtlog.plots` (which re-exports it) so that
the report and other views read it without importing matplotlib.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["engine_tactics"]


def engine_tactics(frame: pd.DataFrame) -> pd.DataFrame:
    """The one tactic each tuned layer ends up with (``tactics_frame`` rows, one per layer).

    TensorRT chooses a tactic per format combination, then keeps one combination: the row
    marked ``in_engine`` (the engine layer runs that tactic, from the log's layer dump). A
    layer without one (no layer dump, or a tactic the dump does not show) gets its fastest
    chosen tactic, and ``engine_known`` is False: the log does not say which combination the
    engine kept. Reformat timings are left out. Adds the column ``engine_known``.

    Example:
        >>> import trtlog
        >>> rows = engine_tactics(trtlog.parse_text("[I] [TRT] nothing\\n").tactics_frame())
        >>> list(rows.columns)[-2:]
        ['in_engine', 'engine_known']
    """
    chosen = frame[frame["chosen"] & ~frame["reformat"] & frame["layer"].notna()]
    chosen = chosen[np.isfinite(chosen["time_ms"].to_numpy(dtype=float))]
    known = chosen[chosen["in_engine"]].drop_duplicates("layer")
    rest = chosen[~chosen["layer"].isin(set(known["layer"]))]
    fastest = rest.sort_values(["time_ms", "line"]).drop_duplicates("layer")
    picked = pd.concat([known.assign(engine_known=True), fastest.assign(engine_known=False)])
    out: pd.DataFrame = picked.sort_values("line").reset_index(drop=True)
    return out
