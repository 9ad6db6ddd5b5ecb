# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Tree-ensemble evaluation, compiled (see :mod:`webclean_scrapy.engine.trees`).

Why it exists: numpy evaluates a padded ensemble level by level, a few
gathers over every (row, tree) pair per level, whether the pair's path has
already reached its leaf or not. In C each pair walks only its own path,
with no temporary arrays: on the blocks of a page this is about ten times
faster. The output is the same sum of leaf values as the numpy evaluation
(:meth:`webclean_scrapy.engine.trees.TreeEnsemble.raw`), which stays the
reference and the fallback.
"""


cdef enum:
    # Rows evaluated together (:func:`add_leaves`): 16 measured fastest on
    # the block model's pages (8 and 32 a few percent slower).
    GROUP = 16


def add_leaves(const double[:, ::1] rows, const Py_ssize_t[::1] feature, const double[::1] threshold,
               const Py_ssize_t[::1] child, const double[::1] value,
               Py_ssize_t trees, Py_ssize_t nodes, Py_ssize_t depth, double[:, ::1] out):
    """Add each row's leaf value of every tree to ``out[row, tree % classes]``.

    The node tables are flattened (tree ``t``'s node ``k`` at ``t * nodes +
    k``); *child* holds each node's left then right child, as absolute
    indexes, and a leaf is its own child, so *depth* steps reach every
    leaf. The step indexes *child* with the comparison's result: no branch
    to mispredict, half the time, on a random path.
    """
    cdef Py_ssize_t n = rows.shape[0], width = rows.shape[1], classes = out.shape[1]
    cdef Py_ssize_t i = 0, t, level, k, group, start, column
    cdef Py_ssize_t node[GROUP]
    cdef const double* row[GROUP]
    cdef const double *x = &rows[0, 0]
    with nogil:
        # GROUP rows at a time through every tree, tree after tree (each
        # row's sum in tree order, as the reference adds it): the group's
        # rows stay in the L1 cache, and the GROUP paths of a step are
        # independent, so their loads overlap instead of each step waiting
        # on the one before.
        while i < n:
            group = GROUP if i + GROUP <= n else n - i
            for k in range(group):
                row[k] = x + (i + k) * width
            for t in range(trees):
                start = t * nodes
                column = t % classes
                for k in range(group):
                    node[k] = start
                for level in range(depth):
                    for k in range(group):
                        node[k] = child[2 * node[k] + (row[k][feature[node[k]]] > threshold[node[k]])]
                for k in range(group):
                    out[i + k, column] += value[node[k]]
            i += group
