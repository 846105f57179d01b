"""The small core below ``theory``: input validation and the private cache folder.

It imports nothing of sigrec; ``theory``, ``numerics`` and ``verify`` all use it.
:mod:`.validate` (public: the validators and their user-facing messages), :mod:`._folders`
(the user's cache folder and its private subfolders).
"""

from . import validate
from ._folders import cache_dir, is_private, private_cache_folder, untrusted_path

__all__ = ["cache_dir", "is_private", "private_cache_folder", "untrusted_path", "validate"]
