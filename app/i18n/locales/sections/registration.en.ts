/** registration (decision 0030). */
const registration = {};
export default registration;
