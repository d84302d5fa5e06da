"""hedron 1.1.3: with both title= and header=, the header was shown and the title dropped."""

from hedron import Card, Text

card = Card(Text("42 rows"), title="Import", header=Text("Nightly import"))
