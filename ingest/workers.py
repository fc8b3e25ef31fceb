"""What multiprocessing's fork server loads before it forks the ingest's worker processes
(ingest/runtime.py form_workers, start_fork_server).

Importing this module imports the modules whose functions the workers run (dedup's forms and
MinHash signatures, tag's mechanics, language detection) and makes lingua load its language
models (ingest/language.py load_models), so that each worker, forked from the server, starts with
them in memory instead of loading them itself. Only the fork server imports it.
"""

from __future__ import annotations

import rulings.ingest.candidates  # noqa: F401
import rulings.ingest.tag  # noqa: F401
from rulings.ingest.language import load_models

load_models()
