"""``int_matrix`` hands back a matrix it built itself without re-checking it, and checks
everything else every time."""
import pytest

from exactdp.params import ExactDPError
from exactdp.projections import matrices
from exactdp.projections.matrices import int_matrix


def test_a_built_matrix_comes_back_as_is_and_others_are_checked() -> None:
    rows = [[1, -1], [0, 2]]
    mat = int_matrix(rows)
    assert mat == ((1, -1), (0, 2)) and int_matrix(mat) is mat
    assert int_matrix(rows) is not mat  # a list is checked and built again
    for bad in ([[1, True], [0, 2]], ((1, 0.5), (0, 2)), ((1, -1), (0,)), ()):
        with pytest.raises(ExactDPError):
            int_matrix(bad)  # type: ignore[arg-type]
    equal_copy = tuple(tuple(r) for r in rows)
    assert int_matrix(equal_copy) == mat  # an equal tuple of another identity: checked, valid
    for _ in range(20):  # the identity table stays small
        int_matrix([[1]])
    assert len(matrices._BUILT) <= matrices._BUILT_MAX
