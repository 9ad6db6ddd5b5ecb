"""Cutting a page's tree down to the elements its readers look at.

On a large page the tree is the largest thing held; the readers after the walk look at a
few kinds of element only (:data:`~webclean_scrapy.engine.html.elements.TREE_READS`), so
the rest is freed before they run.
"""

from __future__ import annotations

from lxml import etree


def prune(root: etree._Element, tags: tuple[str, ...], attributes: tuple[str, ...]) -> None:
    """Remove from *root* every subtree holding no element of *tags* and no
    element carrying one of *attributes* (see :meth:`~webclean_scrapy.engine.document.Document.prune_tree`).

    The kept elements are found by two scans in C (``iter`` and an XPath);
    only their ancestors' children are then visited, and each run of
    children to drop goes with one slice deletion (libxml2 frees a removed
    subtree at once when no Python proxy points into it).
    """
    kept: list[etree._Element] = list(root.iter(*tags)) if tags else []
    if attributes:  # the elements carrying them (``/..``: faster than testing every element)
        kept += etree.XPath(" | ".join(f"//@{name}/.." for name in attributes))(root)
    keep = set(kept)
    paths: set[etree._Element] = {root}  # the kept elements' ancestors
    for element in kept:
        parent = element.getparent()
        while parent is not None and parent not in paths:
            paths.add(parent)
            parent = parent.getparent()
    del kept
    for parent in paths:
        if parent in keep:
            continue  # kept whole
        # Runs of children neither kept nor on a path, deleted last first.
        runs: list[list[int]] = []
        child = None
        for index, child in enumerate(parent):
            if child in keep or child in paths:
                continue
            if runs and runs[-1][1] == index:
                runs[-1][1] = index + 1
            else:
                runs.append([index, index + 1])
        del child
        for start, stop in reversed(runs):
            del parent[start:stop]
