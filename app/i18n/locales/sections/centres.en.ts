/** centres (decision 0030). */
const centres = {};
export default centres;
