/** Lab values checked by the expert and shown to the patient (decision 0084). */
const labs = {
  notYours: "Only the expert reviewing this report can check its values.",
  checkFailed: "This value could not be saved. Check the fields marked.",
  valueRequired: "Enter the value.",
  valueNotNumber: "Enter the value as a number, e.g. 9.8.",
  valueImpossible: "This value is not possible for this test. Check the number and its unit.",
  unitRequired: "Enter the unit.",
  unitUnknown: "This unit is not one this test is reported in.",
  rangeUnreadable: "Write the printed range like 12.0-15.5, < 200 or > 40.",
  badAction: "Choose confirm, correct or remove.",
  analyteRequired: "Choose the test.",
  analyteUnknown: "This test is not in our list.",
  valueNotFound: "This value was not found on this report.",
  alreadyRemoved: "This value was already removed.",
  listed: "Values found.",
  checked: "Value saved.",
  below: "{{name}} {{value}} {{unit}} — below the range printed on your report, {{range}}",
  above: "{{name}} {{value}} {{unit}} — above the range printed on your report, {{range}}",
  within: "{{name}} {{value}} {{unit}} — within the range printed on your report, {{range}}",
  noRange: "{{name}} {{value}} {{unit}} — no range was printed on your report",
};
export default labs;
