"""The store's contestation revisions (Module E): the run a review produced and the run it
revised."""

from __future__ import annotations

from sqlalchemy import insert, select, update

from semv.errors import StoreError
from semv.store import _schema as t
from semv.store._engine import StoreConnection
from semv.store._records import RevisionRecord, utc_now

__all__ = ["Revisions"]


class Revisions(StoreConnection):
    """Revisions: added with the revised run, committed once with their outcome."""

    def add_revision(
        self,
        run_id: str,
        *,
        parent_run_id: str,
        policy: str,
        base_head: str | None,
        batch_json: str,
        review_json: str,
    ) -> None:
        with self._tx() as conn:
            conn.execute(
                insert(t.revisions).values(
                    run_id=run_id,
                    parent_run_id=parent_run_id,
                    policy=policy,
                    base_head=base_head,
                    batch_json=batch_json,
                    review_json=review_json,
                    created_at=utc_now(),
                )
            )

    def commit_revision(self, run_id: str, outcome_json: str) -> None:
        """Record a revision's outcome once; a committed revision never changes."""
        with self._tx() as conn:
            res = conn.execute(
                update(t.revisions)
                .where(t.revisions.c.run_id == run_id, t.revisions.c.committed_at.is_(None))
                .values(outcome_json=outcome_json, committed_at=utc_now())
            )
            if res.rowcount != 1:
                raise StoreError(f"revision {run_id} is unknown or already committed")

    def get_revision(self, run_id: str) -> RevisionRecord | None:
        with self._tx() as conn:
            row = conn.execute(select(t.revisions).where(t.revisions.c.run_id == run_id)).first()
        return None if row is None else RevisionRecord(**row._mapping)

    def revisions_of(self, parent_run_id: str) -> list[RevisionRecord]:
        """Every revision of ``parent_run_id``, oldest first (committed or not)."""
        with self._tx() as conn:
            rows = conn.execute(
                select(t.revisions)
                .where(t.revisions.c.parent_run_id == parent_run_id)
                .order_by(t.revisions.c.created_at, t.revisions.c.run_id)
            ).all()
        return [RevisionRecord(**r._mapping) for r in rows]
