@testable import MeterCore
import Testing

/// The preset table states the delivery specifications' own figures.
@Suite struct DeliveryPresetTests {
    @Test func figuresAreTheSpecifications() throws {
        let r128 = try #require(DeliveryPreset.named("ebu-r128"))
        #expect(r128.integrated == -23 && r128.tolerance == 0.5 && r128.liveTolerance == 1 && r128.maxTruePeak == -1)
        #expect(r128.maxShortTerm == nil)
        #expect(DeliveryPreset.named("ebu-r128-s1")?.maxShortTerm == -18)
        let atsc = try #require(DeliveryPreset.named("atsc-a85"))
        #expect(atsc.integrated == -24 && atsc.tolerance == 2 && atsc.liveTolerance == 2 && atsc.maxTruePeak == -2)
        for name in ["podcast", "aes-streaming", "apple"] {
            let p = try #require(DeliveryPreset.named(name))
            #expect(p.integrated == -16 && p.tolerance == 1 && p.maxTruePeak == -1)
        }
        #expect(DeliveryPreset.named("streaming-14")?.integrated == -14)
        #expect(DeliveryPreset.named("nope") == nil)
        #expect(Set(DeliveryPreset.all.map(\.name)).count == DeliveryPreset.all.count)
    }
}
