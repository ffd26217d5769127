module.exports = require('./jest.shared.cjs')('int');
