"""The tests' private PostgreSQL server: a socket only, throwaway settings, nothing left."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from ladder.extensions import make_engine
from tests.pgcluster import bin_dir, start_cluster


def test_a_cluster_serves_its_socket_only_and_leaves_nothing_behind():
    try:
        bin_dir()
    except RuntimeError as exc:  # a bare pytest without PostgreSQL
        pytest.skip(str(exc))
    cluster = start_cluster()
    try:
        assert cluster.socket_path.is_socket()
        url = cluster.create_database("made", template=None)
        assert url == cluster.url("made")
        eng = make_engine(url)  # as written: postgresql://postgres@/made?host=...&port=...
        with eng.connect() as conn:
            show = {
                name: conn.execute(text(f"SHOW {name}")).scalar()
                for name in ("listen_addresses", "fsync", "max_connections")
            }
        eng.dispose()
        assert show == {"listen_addresses": "", "fsync": "off", "max_connections": "200"}
        cluster.drop_database("made")
        pid = int((cluster.data_dir / "postmaster.pid").read_text().split()[0])
    finally:
        cluster.stop()
    assert not cluster.base.exists()
    assert not os.path.exists(f"/proc/{pid}")
