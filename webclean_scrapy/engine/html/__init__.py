"""Markup to a tree and what is read off it: the parse and its repairs, the walk, the markup screen, the element survey."""
