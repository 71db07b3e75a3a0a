"""Driving the Django admin from a test client: run an action, read its messages."""


def run_action(client, changelist, action, objects):
    """POST ``action`` on ``objects`` to the admin ``changelist`` URL and follow the redirect."""
    selected = [obj.pk for obj in objects]
    return client.post(changelist, {"action": action, "_selected_action": selected}, follow=True)


def messages_of(response):
    """The messages (``message_user``) the response shows."""
    return [str(message) for message in response.context["messages"]]
