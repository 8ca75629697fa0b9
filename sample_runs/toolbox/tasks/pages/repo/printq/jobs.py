"""One document sent to the printer."""

from dataclasses import dataclass


@dataclass
class PrintJob:
    document: str
    pages: int
    copies: int = 1
    duplex: bool = False

    def sheets(self) -> int:
        """Sheets of paper the job uses: two pages per sheet when printing on both sides."""
        per_copy = (self.pages + 1) // 2 if self.duplex else self.pages
        return per_copy * self.copies
