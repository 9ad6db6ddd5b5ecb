"""What a crawl remembers across restarts and workers: its job directory, the pages already emitted,
and the Redis state that workers of a distributed crawl share.
"""
