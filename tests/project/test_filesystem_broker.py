"""project.filesystem_broker: the embedded broker never hands a worker a half-written message."""

from pathlib import Path

import pytest
from kombu import Connection

from project import filesystem_broker
from project.celery import app
from project.filesystem_broker import Transport


@pytest.fixture(scope="module")
def exchanges(tmp_path_factory):
    """The transport's control folder (its exchanges), one for the module: kombu's in-memory
    state remembers an exchange once declared, for the process, so its file must stay where
    it was written. (Unset, it is ``control/`` in the working directory: the checkout.)"""
    return tmp_path_factory.mktemp("control")


def connection(folder, exchanges):
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder)}
    options["control_folder"] = str(exchanges)
    return Connection("filesystem://", transport_options=options)


def test_filesystem_urls_use_the_whole_message_transport(exchanges):
    with app.connection_for_write() as conn:
        if conn.transport_cls == "filesystem":
            assert isinstance(conn.transport, Transport)
    with connection(Path("/nonexistent"), exchanges) as conn:
        assert isinstance(conn.transport, Transport)


def test_a_message_is_renamed_into_the_queue_whole(tmp_path, exchanges, monkeypatch):
    """Until its rename, the queue holds no file of the message; then the whole of it."""
    renames = []
    real_replace = filesystem_broker.os.replace

    def replace(source, target):
        assert Path(source).stat().st_size > 0 and not Path(target).exists()
        renames.append(target)
        real_replace(source, target)

    monkeypatch.setattr(filesystem_broker.os, "replace", replace)
    with connection(tmp_path, exchanges) as conn:
        queue = conn.SimpleQueue("q")
        queue.put({"n": 1})
        assert len(renames) == 1
        names = [path.name for path in tmp_path.iterdir()]
        assert len(names) == 1 and names[0].endswith(".q.msg")  # no .part left behind
        assert queue.get(timeout=1).payload == {"n": 1}
        queue.close()


def test_a_file_still_being_written_is_not_read(tmp_path, exchanges):
    """A ``.part`` file (a message on its way in) is left alone; the whole one is read."""
    (tmp_path / "1_x.q.msg.part").write_bytes(b"")  # what a reader must not take
    with connection(tmp_path, exchanges) as conn:
        queue = conn.SimpleQueue("q")
        queue.put({"n": 2})
        assert queue.get(timeout=1).payload == {"n": 2}
        queue.close()
    assert (tmp_path / "1_x.q.msg.part").exists()
