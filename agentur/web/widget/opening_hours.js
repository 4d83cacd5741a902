// Opening hours as the help desk defines them ({timezone, days: {mon: ["08:00-12:00"]}}),
// written out with the visitor's weekday names.

const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

function weekdayName(index, language) {
  // 1 January 2024 was a Monday.
  const day = new Date(Date.UTC(2024, 0, 1 + index));
  return new Intl.DateTimeFormat(language, { weekday: "short", timeZone: "UTC" }).format(day);
}

/** One line per open day, e.g. "Mo 08:00–12:00, 13:00–17:00"; closed days are left out. */
export function openingLines(hours, language) {
  const lines = [];
  WEEKDAYS.forEach((key, index) => {
    const ranges = hours.days?.[key] || [];
    if (ranges.length) {
      const spans = ranges.map((range) => range.replace("-", "–")).join(", ");
      lines.push(`${weekdayName(index, language)} ${spans}`);
    }
  });
  return lines;
}
