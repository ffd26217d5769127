/**
 * The default scoring model: m / u per level and the prior, fitted by EM
 * without labels (`fitModel`) on 60000 generated records at medium corruption,
 * seed 1 (the bench uses other seeds). Regenerate with
 * `node bench/entity-resolution/fit-model.mjs 60000 1` after a build.
 * Fit: PERSON 268573 blocked pairs, lambda 0.1031, 70 iterations; ORG 375655 blocked pairs, lambda 0.0626, 80 iterations.
 */
import type { ScoringModel } from './scoring.js';

export const DEFAULT_FITTED_MODEL: ScoringModel = {
  PERSON: {
    priorLog2Odds: -13.99,
    population: 30000,
    duplicates: 1.846,
    m: {
      external_id: {
        same: 0.007511,
        other_kinds: 0.00001806,
        not_shared: 0.9925,
      },
      last_name: {
        exact: 0.7864,
        one_edit: 0.1854,
        'jw_0.92': 0.007042,
        'jw_0.88': 0.01174,
        phonetic: 0.002347,
        different: 0.007042,
      },
      first_name: {
        exact: 0.6847,
        initial: 0.1482,
        one_edit: 0.1576,
        'jw_0.88': 0.002353,
        different: 0.007059,
      },
      middle: {
        same: 0.9999,
        different: 0.0001408,
      },
      employer: {
        same: 0.775,
        different: 0.225,
      },
      title: {
        same: 0.5306,
        different: 0.4694,
      },
      state: {
        same: 0.906,
        different: 0.09398,
      },
      city: {
        same: 0.7272,
        same_elsewhere: 0.02408,
        different: 0.2487,
      },
    },
    u: {
      external_id: {
        same: 0.000007504,
        other_kinds: 0.000002501,
        not_shared: 1,
      },
      last_name: {
        exact: 0.001308,
        one_edit: 0.0007879,
        'jw_0.92': 0.0002626,
        'jw_0.88': 0.0006128,
        phonetic: 0.0006928,
        different: 0.9963,
      },
      first_name: {
        exact: 0.007219,
        initial: 0.006753,
        one_edit: 0.001154,
        'jw_0.88': 0.0004833,
        different: 0.9844,
      },
      middle: {
        same: 0.03961,
        different: 0.9604,
      },
      employer: {
        same: 0.0004021,
        different: 0.9996,
      },
      title: {
        same: 0.1104,
        different: 0.8896,
      },
      state: {
        same: 0.04533,
        different: 0.9547,
      },
      city: {
        same: 0.008628,
        same_elsewhere: 0.1234,
        different: 0.868,
      },
    },
  },
  ORG: {
    priorLog2Odds: -13.7,
    population: 25019,
    duplicates: 1.879,
    m: {
      external_id: {
        same: 0.1726,
        other_kinds: 0.005889,
        not_shared: 0.8215,
      },
      name: {
        exact: 0.7277,
        one_edit: 0.2428,
        two_edits: 0.02047,
        token_set_1: 0.0003633,
        'token_set_0.8': 0.0001211,
        'token_set_0.6': 0.008356,
        different: 0.0001211,
      },
      legal_form: {
        same: 0.9998,
        different: 0.0001639,
      },
      state: {
        same: 0.9236,
        different: 0.07643,
      },
      city: {
        same: 0.7978,
        same_elsewhere: 0.009918,
        different: 0.1923,
      },
    },
    u: {
      external_id: {
        same: 0.00004251,
        other_kinds: 0.06642,
        not_shared: 0.9335,
      },
      name: {
        exact: 0.0001162,
        one_edit: 0.00003684,
        two_edits: 0.0001389,
        token_set_1: 0.00003117,
        'token_set_0.8': 0.00003117,
        'token_set_0.6': 0.00125,
        different: 0.9984,
      },
      legal_form: {
        same: 0.1579,
        different: 0.8421,
      },
      state: {
        same: 0.0462,
        different: 0.9538,
      },
      city: {
        same: 0.006624,
        same_elsewhere: 0.02156,
        different: 0.9718,
      },
    },
  },
  minTfU: 1e-7,
};
