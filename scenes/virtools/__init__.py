"""Virtools 2.x files (.nmo / .cmo): the reader, a writer for test files, and
the Ballance level importer (docs/levels.md)."""
