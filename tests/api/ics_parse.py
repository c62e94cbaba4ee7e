"""Parses iCalendar feeds with an independent parser (Debian's python3-icalendar).

Usage: ics_parse.py <file.ics>...

Prints one JSON array with, per file, the calendar's properties and every VEVENT as it
was understood: dates as "YYYY-MM-DD" (a VALUE=DATE) or ISO 8601 UTC instants with "Z".
Run by tests/api/calendar_feed_test.ts, which compares every item with the API's answers.
"""

import datetime
import json
import sys

import icalendar


def when(prop):
    """A DTSTART/DTEND value as text: a date, or a UTC instant (which it must be)."""
    if prop is None:
        return None
    value = prop.dt
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None or value.utcoffset() != datetime.timedelta(0):
            raise ValueError(f"not a UTC time: {value!r}")
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return value.isoformat()


def people(value):
    """ATTENDEE is one value or a list of them; each as {email, cn}."""
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    return [{"address": str(v), "cn": str(v.params.get("CN"))} for v in values]


def text(component, name):
    value = component.get(name)
    return None if value is None else str(value)


def main():
    out = []
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            calendar = icalendar.Calendar.from_ical(f.read())
        events = []
        for event in calendar.walk("VEVENT"):
            events.append({
                "uid": text(event, "UID"),
                "summary": text(event, "SUMMARY"),
                "description": text(event, "DESCRIPTION"),
                "location": text(event, "LOCATION"),
                "start": when(event.get("DTSTART")),
                "startIsDate": event.get("DTSTART").params.get("VALUE") == "DATE",
                "end": when(event.get("DTEND")),
                "dtstamp": when(event.get("DTSTAMP")),
                "organizer": people(event.get("ORGANIZER")),
                "attendees": people(event.get("ATTENDEE")),
            })
        out.append({
            "version": text(calendar, "VERSION"),
            "prodid": text(calendar, "PRODID"),
            "name": text(calendar, "X-WR-CALNAME"),
            "timezones": len(calendar.walk("VTIMEZONE")),
            "events": events,
        })
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
