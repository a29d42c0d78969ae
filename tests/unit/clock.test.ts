import { describe, expect, it } from "vitest";
import { wallClock, zonedInstant } from "~/lib/clock";

/* The clinic's clock (decision 0092): wall-clock time in a named zone, whatever the process's own. */

describe("the clinic's clock", () => {
  it("reads India time from an instant and back, the day rolling over", () => {
    const instant = Date.parse("2026-11-27T18:45:00Z"); // 00:15 on the 28th in India
    expect(wallClock(instant, "Asia/Kolkata")).toEqual({
      year: 2026,
      month: 11,
      day: 28,
      hour: 0,
      minute: 15,
    });
    expect(zonedInstant("Asia/Kolkata", { year: 2026, month: 11, day: 28, hour: 0, minute: 15 })).toBe(
      instant,
    );
    // Day 31 of November is the 1st of December; minute 150 is 02:30.
    expect(zonedInstant("Asia/Kolkata", { year: 2026, month: 11, day: 31, minute: 150 })).toBe(
      Date.parse("2026-12-01T02:30:00+05:30"),
    );
  });

  it("follows a zone's summer time", () => {
    expect(zonedInstant("Europe/London", { year: 2026, month: 7, day: 1, hour: 9 })).toBe(
      Date.parse("2026-07-01T08:00:00Z"),
    );
    expect(zonedInstant("Europe/London", { year: 2026, month: 12, day: 1, hour: 9 })).toBe(
      Date.parse("2026-12-01T09:00:00Z"),
    );
    expect(wallClock(Date.parse("2026-07-01T08:00:00Z"), "Europe/London").hour).toBe(9);
  });
});
