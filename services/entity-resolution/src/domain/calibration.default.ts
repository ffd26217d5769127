/**
 * The default calibration (`calibration.ts`): a logistic regression over the
 * comparison levels, fitted with the labels of generated records at medium
 * corruption (records:seed 20000:1,60000:2,120000:3; the bench uses other seeds), resolved
 * with the EM model alone. Regenerate with
 * `node bench/entity-resolution/fit-calibration.mjs 20000:1,60000:2,120000:3` after a build
 * (and after `fit-model.mjs`, whose term-frequency weights it reads).
 * Fit: PERSON 861818 pairs (62032 matches), 14 iterations, log loss 0.0155 bits; ORG 795606 pairs (34710 matches), 16 iterations, log loss 0.0111 bits.
 */
import type { Calibration } from './calibration.js';

export const DEFAULT_CALIBRATION: Calibration | undefined = {
  "PERSON": {
    "bias": -0.9929,
    "tf": 0.7938,
    "population": 0.8375,
    "levels": {
      "external_id": {
        "not_shared": -0.9933,
        "other_kinds": 0.000419
      },
      "last_name": {
        "different": -3.779,
        "exact": -1.362,
        "one_edit": 3.604,
        "jw_0.92": 1.552,
        "phonetic": -1.597,
        "jw_0.88": 0.5883
      },
      "first_name": {
        "exact": 3.894,
        "different": -7.253,
        "one_edit": 4.143,
        "initial": 1.065,
        "jw_0.88": -0.8811,
        "missing": -1.961
      },
      "state": {
        "different": -4.026,
        "same": 3.033
      },
      "middle": {
        "missing": 0.973,
        "different": -7.38,
        "same": 5.414
      },
      "employer": {
        "missing": -3.042,
        "different": -5.648,
        "same": 7.697
      },
      "title": {
        "missing": -0.49,
        "different": -1.885,
        "same": 1.382
      },
      "city": {
        "missing": -3.124,
        "same": 3.142,
        "same_elsewhere": 4.278,
        "different": -5.288
      }
    },
    "cross": {
      "different": {
        "different": -2.233,
        "same": -1.546
      },
      "exact": {
        "different": -2.217,
        "same": 0.8557
      },
      "one_edit": {
        "same": 2.521,
        "different": 1.083
      },
      "jw_0.92": {
        "same": 1.132,
        "different": 0.4208
      },
      "phonetic": {
        "different": -1.138,
        "same": -0.4586
      },
      "jw_0.88": {
        "same": 0.5298,
        "different": 0.05844
      }
    },
    "tfDifferentState": 0.1974
  },
  "ORG": {
    "bias": -3.252,
    "tf": 0.6875,
    "population": 0.4654,
    "levels": {
      "external_id": {
        "not_shared": -0.1522,
        "other_kinds": -3.1
      },
      "name": {
        "different": -6.348,
        "token_set_0.6": -2.101,
        "exact": 0.3621,
        "one_edit": 6.276,
        "two_edits": 2.514,
        "token_set_1": -1.538,
        "token_set_0.8": -2.418
      },
      "legal_form": {
        "different": -8.075,
        "missing": 0.5862,
        "same": 4.237
      },
      "state": {
        "different": -3.882,
        "missing": -1.013,
        "same": 1.643
      },
      "city": {
        "missing": -3.724,
        "different": -5.833,
        "same": 2.908,
        "same_elsewhere": 3.397
      }
    },
    "cross": {
      "different": {
        "different": -2.27,
        "missing": -2.256,
        "same": -1.821
      },
      "token_set_0.6": {
        "different": -1.89,
        "same": 0.6361,
        "missing": -0.8468
      },
      "exact": {
        "same": -1.743,
        "different": 1.179,
        "missing": 0.9257
      },
      "one_edit": {
        "same": 1.898,
        "missing": 2.965,
        "different": 1.414
      },
      "two_edits": {
        "different": -0.8558,
        "missing": 0.7742,
        "same": 2.595
      },
      "token_set_1": {
        "different": -0.48,
        "missing": -1.842,
        "same": 0.7839
      },
      "token_set_0.8": {
        "different": -0.9783,
        "missing": -0.7327,
        "same": -0.7068
      }
    },
    "tfDifferentState": 0.1456
  }
};
