/** family (decision 0030). */
const family = {};
export default family;
