"""Array types the measuring code passes around: one entry per feature of a layer.

shapely 2 works on numpy arrays of geometry objects; the rules keep positions,
lengths and indexes beside them in plain numeric arrays.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
import numpy.typing as npt

GeometryArray: TypeAlias = npt.NDArray[np.object_]
"""shapely geometries (None where a feature has none)."""

IdArray: TypeAlias = npt.NDArray[np.object_]
"""Feature ids (int or str), beside a layer's geometries."""

FloatArray: TypeAlias = npt.NDArray[np.float64]
IntArray: TypeAlias = npt.NDArray[np.int64]
BoolArray: TypeAlias = npt.NDArray[np.bool_]
