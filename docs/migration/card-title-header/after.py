"""Here a card has one heading: put the title inside the header."""

import secrets

from hedron import Card, Heading, Hedron, Page, Stack, Text

app = Hedron(title="Imports", session_secret=secrets.token_urlsafe(48))


@app.page("/")
def home() -> Page:
    header = Stack(Heading("Import"), Text("Nightly import"), gap="sm")
    return Page(Card(Text("42 rows"), header=header, footer="Updated 5 minutes ago"))
