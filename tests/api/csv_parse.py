"""Reads a CSV file with Python's csv module (RFC 4180 dialect: excel) and prints its records
as a JSON array of arrays of strings. Used by loan_console_csv_test.ts as an independent parser."""
import csv
import json
import sys

with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f, dialect="excel", strict=True))
print(json.dumps(rows, ensure_ascii=False))
