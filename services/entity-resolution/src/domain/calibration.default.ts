/**
 * The default calibration (`calibration.ts`): a logistic regression over the
 * comparison levels, fitted with the labels of generated records at medium
 * corruption (records:seed 20000:1,60000:2,120000:3; the bench uses other seeds), resolved
 * with the EM model alone. Regenerate with
 * `node bench/entity-resolution/fit-calibration.mjs 20000:1,60000:2,120000:3` after a build
 * (and after `fit-model.mjs`, whose term-frequency weights it reads).
 * Fit: PERSON 881562 pairs (61991 matches), 14 iterations, log loss 0.0139 bits; ORG 792954 pairs (34562 matches), 16 iterations, log loss 0.0109 bits.
 */
import type { Calibration } from './calibration.js';

export const DEFAULT_CALIBRATION: Calibration | undefined = {
  "PERSON": {
    "bias": -1.841,
    "tf": 0.8564,
    "population": 0.9193,
    "levels": {
      "external_id": {
        "not_shared": -1.841,
        "other_kinds": 0.0002809
      },
      "last_name": {
        "different": -1.938,
        "exact": 0.2848,
        "one_edit": 2.12,
        "jw_0.92": -0.5679,
        "phonetic": 0.1625,
        "jw_0.88": -1.903
      },
      "first_name": {
        "exact": 4.354,
        "different": -8.969,
        "one_edit": 3.801,
        "initial": 1.375,
        "jw_0.88": -0.6533,
        "missing": -1.75
      },
      "state": {
        "different": -4.415,
        "same": 2.574
      },
      "middle": {
        "missing": 0.5443,
        "different": -7.443,
        "same": 5.058
      },
      "employer": {
        "missing": -3.187,
        "different": -5.844,
        "same": 7.19
      },
      "title": {
        "missing": -0.7588,
        "different": -2.13,
        "same": 1.048
      },
      "city": {
        "missing": -3.296,
        "same": 2.74,
        "same_elsewhere": 4.191,
        "different": -5.476
      }
    },
    "cross": {
      "different": {
        "different": -1.402,
        "same": -0.5357
      },
      "exact": {
        "different": -1.26,
        "same": 1.545
      },
      "one_edit": {
        "same": 1.774,
        "different": 0.3463
      },
      "jw_0.92": {
        "same": 0.07021,
        "different": -0.6381
      },
      "phonetic": {
        "different": -0.3139,
        "same": 0.4764
      },
      "jw_0.88": {
        "same": -0.7559,
        "different": -1.147
      }
    },
    "tfDifferentState": 0.1459,
    "tfFuzzy": 0.4712
  },
  "ORG": {
    "bias": -4.448,
    "tf": 0.7896,
    "population": 0.7724,
    "levels": {
      "external_id": {
        "not_shared": -0.7611,
        "other_kinds": -3.687
      },
      "name": {
        "different": -4.451,
        "token_set_0.6": 0.09936,
        "exact": 1.484,
        "one_edit": 1.495,
        "two_edits": -2.403,
        "token_set_1": 0.3756,
        "token_set_0.8": -1.047
      },
      "legal_form": {
        "different": -8.467,
        "missing": 0.1854,
        "same": 3.833
      },
      "state": {
        "different": -4.285,
        "missing": -1.437,
        "same": 1.273
      },
      "city": {
        "missing": -4.028,
        "different": -6.123,
        "same": 2.648,
        "same_elsewhere": 3.055
      }
    },
    "cross": {
      "different": {
        "different": -1.672,
        "missing": -1.641,
        "same": -1.137
      },
      "token_set_0.6": {
        "different": -1.165,
        "same": 1.363,
        "missing": -0.09869
      },
      "exact": {
        "same": -1.294,
        "different": 1.384,
        "missing": 1.394
      },
      "one_edit": {
        "same": 0.2453,
        "missing": 1.396,
        "different": -0.147
      },
      "two_edits": {
        "different": -2.35,
        "missing": -0.8163,
        "same": 0.7627
      },
      "token_set_1": {
        "different": 0.1043,
        "missing": -1.363,
        "same": 1.634
      },
      "token_set_0.8": {
        "different": -0.4398,
        "missing": -0.3077,
        "same": -0.2999
      }
    },
    "tfDifferentState": 0.1695,
    "tfFuzzy": 0.6434
  }
};
