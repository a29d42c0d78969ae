import { describe, expect, it } from "vitest";
import { rtpPortsLine } from "~/domain/calls/baresip.server";

/**
 * The sound of a call stays on the ports the clinic opened (VOICE_RTP_PORTS, decision 0093): baresip
 * puts RTP on an even port (its lowest bit cleared), so the range it is given starts on an even one.
 * A real call put its sound on 41428 for the range 41429–41468 before (CI, calls-sip.test.ts).
 */
describe("baresip's RTP port range", () => {
  it("starts on the first even port of the opened range, so no port below it is used", () => {
    expect(rtpPortsLine([41429, 41468])).toBe("rtp_ports 41430-41468");
    expect(rtpPortsLine([10000, 10099])).toBe("rtp_ports 10000-10099");
  });

  it("any port baresip can draw from it, with its lowest bit cleared, and the RTCP port after it, lie in the opened range", () => {
    for (const from of [1024, 1025, 41429, 65000, 65001]) {
      const to = from + 3;
      const [min, max] = rtpPortsLine([from, to]).replace("rtp_ports ", "").split("-").map(Number);
      for (let port = min; port < max; port++) {
        const rtp = port & 0xfffe;
        expect(rtp).toBeGreaterThanOrEqual(from);
        expect(rtp + 1).toBeLessThanOrEqual(to);
      }
    }
  });
});
