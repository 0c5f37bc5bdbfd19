@testable import MeterCore
import Testing

/// The verdict judges the end figures as printed, by a preset's file or live tolerance.
@Suite struct DeliveryRulesTests {
    static func summary(i: Double, tp: [Double], maxS: Double = -30) -> LoudnessSummary {
        LoudnessSummary(integrated: i, range: 0, maxMomentary: maxS, maxShortTerm: maxS, truePeakDb: tp)
    }

    @Test func judgesEachRuleAtItsLimits() throws {
        let r128 = DeliveryRules(try #require(DeliveryPreset.named("ebu-r128")), live: false)
        #expect(r128.judge(Self.summary(i: -23.5, tp: [-1.0, -3])).pass)
        // -23.504 prints as -23.50: judged as printed.
        #expect(r128.judge(Self.summary(i: -23.504, tp: [-1.004])).pass)
        let low = r128.judge(Self.summary(i: -23.51, tp: [-5, -0.99]))
        #expect(!low.pass && low.failed.map(\.kind) == [.integrated, .truePeak])
        #expect(low.rules[0].value == -23.51 && low.rules[0].min == -23.5 && low.rules[0].max == -22.5)
        #expect(low.rules[1].value == -0.99, "the largest true peak over the channels")
        let live = DeliveryRules(try #require(DeliveryPreset.named("ebu-r128")), live: true)
        #expect(live.judge(Self.summary(i: -23.9, tp: [-2])).pass)
        let s1 = DeliveryRules(try #require(DeliveryPreset.named("ebu-r128-s1")), live: false)
        let loud = s1.judge(Self.summary(i: -23, tp: [-2], maxS: -17.9))
        #expect(loud.rules.map(\.kind) == [.integrated, .truePeak, .maxShortTerm] && loud.failed.map(\.kind) == [.maxShortTerm])
        // The ceiling alone judges the true peak only.
        #expect(DeliveryRules(maxTruePeak: -2).judge(Self.summary(i: -10, tp: [-2.5])).rules.map(\.kind) == [.truePeak])
    }

    @Test func plrHeadroomAndTheCeiling() {
        var s = Self.summary(i: -19, tp: [-4.5, -6])
        s.target = -16
        #expect(abs(s.plrDb - 14.5) < 1e-9 && abs(s.headroomDb - 3.5) < 1e-9 && s.gainCrossesCeiling == false)
        s.target = -14
        #expect(s.gainCrossesCeiling)
        s.rules = DeliveryRules(maxTruePeak: -2)
        #expect(abs(s.headroomDb - 2.5) < 1e-9)
        #expect(Self.summary(i: Decibels.floor, tp: [Decibels.floor]).plrDb == 0)
    }
}
