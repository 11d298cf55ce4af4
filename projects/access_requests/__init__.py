"""Access that is requested, approved and ends by itself: time-limited roles in a project and exec into its
platform sidecars (``models``: the rows; ``rules``: what a grant allows, read by every authorization check;
``services``: the audited writes; ``expiry``: the beat task's pass; ``signals``: what the notifications follow)."""
