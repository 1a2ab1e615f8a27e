import Foundation

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014).
/// The simulated camera needs noise that is identical on every machine and every run for a given
/// seed, and independent of how rows are spread over threads; so each image row draws from its
/// own stream, derived from (seed, stream) by hashing. `measure` draws its subsamples and
/// bootstrap resamples from it, so that a report is the same on every run.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64, stream: UInt64 = 0) {
        // Hashing the stream number first keeps neighbouring rows' sequences unrelated.
        var streamHash = SplitMix64(state: stream)
        state = seed ^ streamHash.next()
    }

    private init(state: UInt64) {
        self.state = state
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Standard normal by Box-Muller. Always consumes exactly two draws, so a pixel's position in
    /// the stream never depends on earlier pixels' values.
    public mutating func gaussian() -> Double {
        let u1 = 1 - unit()  // (0, 1]: log stays finite
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
