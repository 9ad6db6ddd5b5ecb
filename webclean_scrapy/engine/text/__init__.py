"""Text-level building blocks below the document model: charsets, scripts, punctuation marks, language."""
