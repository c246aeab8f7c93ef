//! Target matchers (glob, pcre, list, grain, pillar, ipcidr, compound, nodegroup).
